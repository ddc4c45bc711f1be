package io.softcmi.cmi;

import java.util.Set;

/**
 * The answer of {@code seg_ctl(CMI_SEG_INFO)} ({@link CmiContext#segInfo(CmiSegment)}): the
 * spec's {@code cmi_ds.info}. The attributes of an exported segment and of its imports match.
 *
 * @param segAlign {@code seg_align}: the attach alignment this segment needs
 * @param segSz {@code seg_sz}: the size of the segment in bytes (the maximum size of an
 *              extensible segment)
 * @param segFlags {@code seg_flags}: the creation flags; copied, never null
 * @param segProtAlign {@code seg_prot_align}: the alignment an offset given to {@code tok_newva}
 *                     ({@link CmiContext#tokNewRange}) must meet
 * @param segProtSz {@code seg_prot_sz}: the granularity of range token sizes given to
 *                  {@code tok_newva}
 */
public record SegInfo(long segAlign, long segSz, Set<SegFlag> segFlags, long segProtAlign,
                      long segProtSz) {
    /**
     * Copies the flags.
     *
     * @throws NullPointerException if {@code segFlags} is null or contains null
     */
    public SegInfo {
        segFlags = Set.copyOf(segFlags);
    }
}
