package io.softcmi.cmi.internal;

import io.softcmi.cmi.RemoteSegmentHandle;

/**
 * A remote segment handle ({@code cmi_rseg}): names the home node, the segment and its
 * generation, and the export it came from. It carries no secret: access needs a token.
 *
 * @param home the home node
 * @param segmentId segment id at the home
 * @param generation the home's incarnation of that segment (ids are never reused while alive)
 * @param exportId which {@code seg_exp} made it
 * @param size the segment's maximum size
 * @param segFlags the segment's SegFlag bits
 * @param writeThrough whether exported with {@code CMI_SEG_WRITE_THROUGH}
 */
public record RemoteSegmentHandleImpl(NodeAddressImpl home, long segmentId, long generation, long exportId,
        long size, int segFlags, boolean writeThrough) implements RemoteSegmentHandle {
    @Override
    public byte[] toBytes() {
        return HandleCodec.encode(this);
    }
}
