package io.softcmi.cmi.internal;

import io.softcmi.cmi.NodeAddress;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * A node's address: its 128-bit node id and the host and port where its daemon serves remote
 * requests. The all-zero id is {@link NodeAddress#ANY} ({@code CMI_NADDR_ANY}).
 *
 * @param nodeId 16 bytes
 * @param host host of the daemon's data/peer listener, "" for ANY
 * @param port its port, 0 for ANY
 */
public record NodeAddressImpl(byte[] nodeId, String host, int port) implements NodeAddress {
    /** Length of a node id. */
    public static final int ID_LENGTH = 16;

    /**
     * Validates the components.
     *
     * @param nodeId 16 bytes
     * @param host host
     * @param port port
     */
    public NodeAddressImpl {
        if (nodeId.length != ID_LENGTH || port < 0 || port > 65535
                || host.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 255) {
            throw new IllegalArgumentException("bad node address");
        }
        nodeId = nodeId.clone();
    }

    @Override
    public byte[] nodeId() {
        return nodeId.clone();
    }

    /** @return whether this is {@code CMI_NADDR_ANY} */
    public boolean isAny() {
        for (byte b : nodeId) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    @Override
    public byte[] toBytes() {
        return HandleCodec.encode(this);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NodeAddressImpl other && Arrays.equals(nodeId, other.nodeId)
            && host.equals(other.host) && port == other.port;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(nodeId) * 31 + port;
    }

    @Override
    public String toString() {
        return isAny() ? "CMI_NADDR_ANY" : HexFormat.of().formatHex(nodeId, 0, 4) + "@"
            + (host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host) + ":" + port;
    }
}
