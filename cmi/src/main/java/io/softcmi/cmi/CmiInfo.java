package io.softcmi.cmi;

/**
 * The answer of {@code cmi_ctl(CMI_CTL_INFO)} ({@link CmiContext#ctlInfo()}): the configured
 * parameters and limits of the CMI system for the context. Components carry the spec's
 * {@code cmi_ctl_cfg} field names in camelCase; sizes are in bytes.
 *
 * @param maxMemAvail {@code max_mem_avail}: CMI memory currently available (a snapshot)
 * @param maxMemCfg {@code max_mem_cfg}: CMI memory configured for the system
 * @param maxSegSz {@code max_seg_sz}: the largest segment that can be created
 * @param maxExpSegs {@code max_exp_segs}: the maximum number of exported segments
 * @param maxImpSegs {@code max_imp_segs}: the maximum number of imported segments
 * @param maxWriteThroughSegs {@code max_write_through_segs}: the maximum number of write-through
 *                            segments, 0 if they are not supported
 * @param maxAccToks {@code max_acc_toks}: the maximum number of active access tokens
 * @param maxAccStok {@code max_acc_stok}: the maximum number of access tokens per segment
 * @param curExpSegs {@code cur_exp_segs}: the number of segments exported now
 * @param curImpSegs {@code cur_imp_segs}: the number of segments imported now
 * @param cacheLineSz {@code cache_line_sz}: the cache line size; the unit of
 *                    {@code CMI_SEG_CHECK}/{@code CMI_SEG_RECO} and {@code cflush}
 * @param maxRecoSegsz {@code max_reco_segsz}: the largest range one {@code CMI_SEG_CHECK} or
 *                     {@code CMI_SEG_RECO} may cover, a multiple of {@code cacheLineSz}
 * @param protUnits {@code prot_units}: the access protection granularity; segment sizes and break
 *                  points must be multiples of it
 * @param segAllocUnits {@code seg_alloc_units}: the allocation unit of segments; sizes that are
 *                      multiples of it waste nothing
 * @param segAlignment {@code seg_alignment}: the attach alignment of normal segments
 * @param segLrgpgAlignment {@code seg_lrgpg_alignment}: the attach alignment of
 *                          {@link SegFlag#LARGE_PAGES} segments
 */
public record CmiInfo(long maxMemAvail, long maxMemCfg, long maxSegSz, long maxExpSegs,
                      long maxImpSegs, long maxWriteThroughSegs, long maxAccToks, long maxAccStok,
                      long curExpSegs, long curImpSegs, long cacheLineSz, long maxRecoSegsz,
                      long protUnits, long segAllocUnits, long segAlignment,
                      long segLrgpgAlignment) {
}
