package io.softcmi.cmi.internal.direct;

import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.internal.Errors;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Where a {@code DirectInlet} is reached: its process's host and port, the inlet's number there,
 * its segment's size, its key and its server's key. Encoded as bytes for {@code DirectInlet.address()}.
 *
 * @param host the host the inlet's server listens on
 * @param port its TCP port
 * @param inletId the inlet's number in that server
 * @param size the segment's size in bytes
 * @param key the inlet's random key (the sender proves it holds the address with it)
 * @param serverKey the random key of the inlet's server, the same for every inlet it serves: a
 *     process that connects proves with it, in its HELLO, that it holds an address of one
 */
record InletAddress(String host, int port, int inletId, long size, byte[] key, byte[] serverKey) {
    private static final int MAGIC = 0x494E4C32; // "INL2"
    static final int KEY_LENGTH = 16;

    byte[] toBytes() {
        byte[] h = host.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(4 + 4 + 4 + 8 + 2 * KEY_LENGTH + 2 + h.length);
        b.putInt(MAGIC).putInt(port).putInt(inletId).putLong(size).put(key).put(serverKey).putShort((short) h.length).put(h);
        return b.array();
    }

    /**
     * @param bytes an inlet's address
     * @return the decoded address
     * @throws io.softcmi.cmi.CmiException INVAL if {@code bytes} is not one
     */
    static InletAddress fromBytes(byte[] bytes) {
        Errors.checkNotNull(bytes, "inlet address");
        try {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            if (b.getInt() != MAGIC) {
                throw Errors.fail(CmiError.INVAL, "not an inlet address");
            }
            int port = b.getInt();
            int id = b.getInt();
            long size = b.getLong();
            byte[] key = new byte[KEY_LENGTH];
            b.get(key);
            byte[] serverKey = new byte[KEY_LENGTH];
            b.get(serverKey);
            byte[] h = new byte[b.getShort() & 0xFFFF];
            b.get(h);
            if (b.hasRemaining() || port <= 0 || port > 0xFFFF || size <= 0) {
                throw Errors.fail(CmiError.INVAL, "malformed inlet address");
            }
            return new InletAddress(new String(h, StandardCharsets.UTF_8), port, id, size, key, serverKey);
        } catch (BufferUnderflowException e) {
            throw Errors.fail(CmiError.INVAL, "truncated inlet address");
        }
    }

    /** @return the server's endpoint, the key of the connection the routes to it share */
    String endpoint() {
        return host + ":" + port;
    }
}
