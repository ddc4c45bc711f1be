package io.softcmi.cmi;

import io.softcmi.cmi.internal.HandleCodec;

/**
 * An access token: the spec's {@code cmi_token}, made by {@code tok_new} or {@code tok_newva} on the
 * home node ({@link CmiContext#tokNew}, {@link CmiContext#tokNewRange}), revoked by {@code tok_del}
 * and set on importing nodes with {@code seg_ctl(CMI_SEG_TOKEN)} ({@link CmiContext#segSetToken}).
 * It holds a secret: whoever has its bytes may access the segment as it allows.
 *
 * <p>Opaque and immutable. It travels between processes and nodes as bytes: {@link #toBytes()}
 * encodes it and {@link #fromBytes(byte[])} decodes it. The
 * length of that array is the size that
 * {@code attr_get(CMI_ATTR_TOKEN_SIZE)} ({@link CmiContext#attrTokenSize(CmiSegment)}) reports. Two
 * handles are {@code equals} (and have the same {@code hashCode}) when their
 * contents are equal, whichever process decoded them.
 */
public interface CmiToken {
    /**
     * Encodes this access token for transport to another process or node.
     *
     * @return a fresh copy of the encoded bytes; changing it does not change this handle
     */
    byte[] toBytes();

    /**
     * Decodes a access token received from another process or node.
     *
     * @param b bytes produced by {@link #toBytes()}
     * @return the handle
     * @throws CmiException with {@link CmiError#INVAL} if {@code b} is not a valid encoding
     */
    static CmiToken fromBytes(byte[] b) {
        return HandleCodec.token(b);
    }
}
