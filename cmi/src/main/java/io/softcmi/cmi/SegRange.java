package io.softcmi.cmi;

/**
 * A range of a segment: the answer of {@code seg_ctl(CMI_SEG_CHECK)}
 * ({@link CmiContext#segCheck(CmiSegment, long, long)}), the spec's {@code cmi_ds.op.reco}: the
 * lowest range of the checked region that needs recovery.
 *
 * @param offset the byte offset of the range into the segment
 * @param size the length of the range in bytes
 */
public record SegRange(long offset, long size) {
}
