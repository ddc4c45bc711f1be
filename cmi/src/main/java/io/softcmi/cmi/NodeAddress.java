package io.softcmi.cmi;

import io.softcmi.cmi.internal.HandleCodec;

/**
 * A CMI node address: the spec's {@code cmi_naddr}, naming a node on the fabric. A context's own is
 * {@link CmiContext#nodeAddress()}; it is exchanged out of band to make node-specific tokens
 * ({@code tok_new}) and appears in events.
 *
 * <p>Opaque and immutable. It travels between processes and nodes as bytes: {@link #toBytes()}
 * encodes it and {@link #fromBytes(byte[])} decodes it. The
 * length of that array is the size that
 * {@code attr_get(CMI_ATTR_NODEADDR_SIZE)} ({@link CmiContext#attrNodeAddrSize()}) reports. Two
 * handles are {@code equals} (and have the same {@code hashCode}) when their
 * contents are equal, whichever process decoded them.
 */
public interface NodeAddress {
    /**
     * The spec's {@code CMI_NADDR_ANY}: no particular node, used to make node-agnostic tokens with
     * {@code tok_new}.
     */
    NodeAddress ANY = HandleCodec.ANY_NODE;

    /**
     * Encodes this node address for transport to another process or node.
     *
     * @return a fresh copy of the encoded bytes; changing it does not change this handle
     */
    byte[] toBytes();

    /**
     * Decodes a node address received from another process or node.
     *
     * @param b bytes produced by {@link #toBytes()}
     * @return the handle
     * @throws CmiException with {@link CmiError#INVAL} if {@code b} is not a valid encoding
     */
    static NodeAddress fromBytes(byte[] b) {
        return HandleCodec.nodeAddress(b);
    }
}
