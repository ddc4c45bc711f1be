package io.softcmi.cmi;

import io.softcmi.cmi.internal.HandleCodec;

/**
 * A remote segment handle: the spec's {@code cmi_rseg}, returned by {@code seg_exp}
 * ({@link CmiContext#segExp(CmiSegment, java.util.Set)}) on the home node and given to
 * {@code seg_imp} ({@link CmiContext#segImp(RemoteSegmentHandle)}) on importing nodes. It identifies
 * the segment on the cluster.
 *
 * <p>Opaque and immutable. It travels between processes and nodes as bytes: {@link #toBytes()}
 * encodes it and {@link #fromBytes(byte[])} decodes it. The
 * length of that array is the size that
 * {@code attr_get(CMI_ATTR_RSEG_SIZE)} ({@link CmiContext#attrRsegSize(CmiSegment)}) reports. Two
 * handles are {@code equals} (and have the same {@code hashCode}) when their
 * contents are equal, whichever process decoded them.
 */
public interface RemoteSegmentHandle {
    /**
     * Encodes this remote segment handle for transport to another process or node.
     *
     * @return a fresh copy of the encoded bytes; changing it does not change this handle
     */
    byte[] toBytes();

    /**
     * Decodes a remote segment handle received from another process or node.
     *
     * @param b bytes produced by {@link #toBytes()}
     * @return the handle
     * @throws CmiException with {@link CmiError#INVAL} if {@code b} is not a valid encoding
     */
    static RemoteSegmentHandle fromBytes(byte[] b) {
        return HandleCodec.remoteSegmentHandle(b);
    }
}
