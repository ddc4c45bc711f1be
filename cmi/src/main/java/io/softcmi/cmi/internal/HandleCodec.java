package io.softcmi.cmi.internal;

import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.RemoteSegmentHandle;
import io.softcmi.wire.WireFormatException;
import io.softcmi.wire.WireReader;
import io.softcmi.wire.WireWriter;

/**
 * Encodes and decodes the opaque handles that travel between nodes. Each starts with a 4-byte
 * magic and a version byte; decoding anything else fails with {@code CmiException(INVAL)}.
 *
 * <pre>
 * node address : "CMIN" | version | node id (16) | port (2) | host length (1) | host (UTF-8)
 * remote handle: "CMIR" | version | node address (length-prefixed) | segment id (8) | generation (8)
 *                | export id (8) | size (8) | seg flags (4) | write-through (1)
 * token        : "CMIT" | version | home node id (16) | segment id (8) | token id (8) | bound node id (16)
 *                | secret (16)
 * </pre>
 */
public final class HandleCodec {
    /** {@code CMI_NADDR_ANY}: the all-zero node id. */
    public static final NodeAddress ANY_NODE = new NodeAddressImpl(new byte[NodeAddressImpl.ID_LENGTH], "", 0);

    private static final int NODE_MAGIC = 0x434d494e; // "CMIN"
    private static final int RSEG_MAGIC = 0x434d4952; // "CMIR"
    private static final int TOKEN_MAGIC = 0x434d4954; // "CMIT"
    private static final int VERSION = 1;

    private HandleCodec() {
    }

    static byte[] encode(NodeAddressImpl a) {
        WireWriter w = new WireWriter(48);
        writeNode(w, a);
        return w.toByteArray();
    }

    private static void writeNode(WireWriter w, NodeAddressImpl a) {
        byte[] host = a.host().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        w.putInt(NODE_MAGIC).putByte(VERSION).putRaw(a.nodeId()).putByte(a.port() >>> 8).putByte(a.port())
            .putByte(host.length).putRaw(host);
    }

    static byte[] encode(RemoteSegmentHandleImpl h) {
        WireWriter w = new WireWriter(96);
        w.putInt(RSEG_MAGIC).putByte(VERSION).putBytes(encode(h.home())).putLong(h.segmentId())
            .putLong(h.generation()).putLong(h.exportId()).putLong(h.size()).putInt(h.segFlags())
            .putBoolean(h.writeThrough());
        return w.toByteArray();
    }

    static byte[] encode(TokenImpl t) {
        WireWriter w = new WireWriter(56);
        w.putInt(TOKEN_MAGIC).putByte(VERSION).putRaw(t.homeNodeId()).putLong(t.segmentId()).putLong(t.tokenId())
            .putRaw(t.boundNodeId()).putRaw(t.secret());
        return w.toByteArray();
    }

    /**
     * {@code NodeAddress.fromBytes}.
     *
     * @param bytes encoded address
     * @return the address
     * @throws io.softcmi.cmi.CmiException INVAL if the bytes are not a node address
     */
    public static NodeAddress nodeAddress(byte[] bytes) {
        try {
            WireReader r = new WireReader(Errors.checkNotNull(bytes, "node address bytes"));
            NodeAddressImpl a = readNode(r);
            r.expectEnd();
            return a.isAny() ? ANY_NODE : a;
        } catch (WireFormatException | IllegalArgumentException e) {
            throw Errors.fail(CmiError.INVAL, "not a node address: " + e.getMessage());
        }
    }

    private static NodeAddressImpl readNode(WireReader r) {
        expectHeader(r, NODE_MAGIC, "node address");
        byte[] id = r.getRaw(NodeAddressImpl.ID_LENGTH);
        int port = (r.getByte() << 8) | r.getByte();
        int hostLength = r.getByte();
        String host = new String(r.getRaw(hostLength), java.nio.charset.StandardCharsets.UTF_8);
        return new NodeAddressImpl(id, host, port);
    }

    /**
     * {@code RemoteSegmentHandle.fromBytes}.
     *
     * @param bytes encoded handle
     * @return the handle
     * @throws io.softcmi.cmi.CmiException INVAL if the bytes are not a remote segment handle
     */
    public static RemoteSegmentHandle remoteSegmentHandle(byte[] bytes) {
        try {
            WireReader r = new WireReader(Errors.checkNotNull(bytes, "remote segment handle bytes"));
            expectHeader(r, RSEG_MAGIC, "remote segment handle");
            WireReader nr = new WireReader(r.getBytes(300));
            NodeAddressImpl home = readNode(nr);
            nr.expectEnd();
            RemoteSegmentHandleImpl h = new RemoteSegmentHandleImpl(home, r.getLong(), r.getLong(), r.getLong(),
                r.getLong(), r.getInt(), r.getBoolean());
            r.expectEnd();
            if (home.isAny() || h.size() <= 0 || h.segmentId() <= 0) {
                throw new WireFormatException("impossible field values");
            }
            return h;
        } catch (WireFormatException | IllegalArgumentException e) {
            throw Errors.fail(CmiError.INVAL, "not a remote segment handle: " + e.getMessage());
        }
    }

    /**
     * {@code CmiToken.fromBytes}.
     *
     * @param bytes encoded token
     * @return the token
     * @throws io.softcmi.cmi.CmiException INVAL if the bytes are not a token
     */
    public static CmiToken token(byte[] bytes) {
        try {
            WireReader r = new WireReader(Errors.checkNotNull(bytes, "token bytes"));
            expectHeader(r, TOKEN_MAGIC, "token");
            TokenImpl t = new TokenImpl(r.getRaw(NodeAddressImpl.ID_LENGTH), r.getLong(), r.getLong(),
                r.getRaw(NodeAddressImpl.ID_LENGTH), r.getRaw(TokenImpl.SECRET_LENGTH));
            r.expectEnd();
            return t;
        } catch (WireFormatException | IllegalArgumentException e) {
            throw Errors.fail(CmiError.INVAL, "not a token: " + e.getMessage());
        }
    }

    /** @return the encoded length of every token ({@code CMI_ATTR_TOKEN_SIZE}) */
    public static int tokenSize() {
        return 4 + 1 + NodeAddressImpl.ID_LENGTH + 8 + 8 + NodeAddressImpl.ID_LENGTH + TokenImpl.SECRET_LENGTH;
    }

    private static void expectHeader(WireReader r, int magic, String what) {
        if (r.getInt() != magic) {
            throw new WireFormatException("bad magic for " + what);
        }
        int version = r.getByte();
        if (version != VERSION) {
            throw new WireFormatException("unsupported " + what + " version " + version);
        }
    }
}
