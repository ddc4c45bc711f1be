package io.softcmi.cmi.internal;

import io.softcmi.cmi.CmiAccessError;
import io.softcmi.wire.DataProtocol;
import io.softcmi.wire.WireFormatException;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * A process's data connection to one home node ({@link DataProtocol}): one hop, straight from
 * the process to the daemon that homes the segment, opened with a ticket from the process's own
 * daemon. Requests are synchronous (one outstanding per connection, callers serialized), so
 * every load, store and CAS is complete at the home when it returns; that is what makes
 * write-through imports and the barriers hold without more work.
 *
 * <p>Waiting for a reply polls the socket first (spin, then yield, then block): waking a parked
 * thread costs ~100 us on small VMs, a loopback round trip ~12 us.
 */
final class RemoteConnection implements AutoCloseable {
    private static final long SPIN_NANOS = 200_000;
    private static final long YIELD_NANOS = 2_000_000;
    /** Status of a request that failed on the network: the caller maps it to TRANSIENT. */
    static final int STATUS_IO = -1;

    private final SocketChannel channel;
    private final ByteBuffer out = DataProtocol.newBuffer();
    private final ByteBuffer in = DataProtocol.newBuffer();
    private final MemorySegment outSegment = MemorySegment.ofBuffer(out);
    private final MemorySegment inSegment = MemorySegment.ofBuffer(in);
    private long nextRequestId;
    private long value;
    private volatile boolean broken;

    private RemoteConnection(SocketChannel channel) {
        this.channel = channel;
    }

    static RemoteConnection open(NodeAddressImpl home, byte[] ticket) throws IOException {
        SocketChannel ch = SocketChannel.open();
        try {
            ch.socket().connect(new InetSocketAddress(home.host(), home.port()), 5000);
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ch.write(ByteBuffer.wrap(new byte[] {'D'}));
            ch.configureBlocking(false);
            RemoteConnection c = new RemoteConnection(ch);
            DataProtocol.writeRequest(c.out, DataProtocol.OP_HELLO, 0, 0, 0, 0, 0, 0, 0, 0, ticket.length);
            c.out.put(ticket);
            if (c.exchange() != DataProtocol.STATUS_OK) {
                throw new IOException("home node " + home + " refused this node's ticket (different cluster key?)");
            }
            return c;
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    boolean broken() {
        return broken;
    }

    /** @return the value of the last reply (CAS: the value before) */
    long value() {
        return value;
    }

    /**
     * Reads {@code length} bytes at {@code offset} into {@code dst}, in chunks of at most
     * {@link DataProtocol#MAX_PAYLOAD}; each reply's payload is read straight into {@code dst}.
     *
     * @return 0, 1 + a {@link CmiAccessError} ordinal, or {@link #STATUS_IO}
     */
    synchronized int get(long segmentId, TokenImpl token, long offset, MemorySegment dst, long dstOffset, long length) {
        long done = 0;
        try {
            while (done < length) {
                int chunk = (int) Math.min(length - done, DataProtocol.MAX_PAYLOAD);
                request(DataProtocol.OP_GET, segmentId, token, offset + done, chunk, 0, 0);
                send(null);
                int status = readReplyHeader();
                if (status != 0) {
                    return status;
                }
                if (in.getLong(16) != chunk) {
                    throw new WireFormatException("home sent " + in.getLong(16) + " bytes for a " + chunk + "-byte read");
                }
                fill(dst.asSlice(dstOffset + done, chunk).asByteBuffer());
                done += chunk;
            }
            return 0;
        } catch (IOException | WireFormatException e) {
            return failed();
        }
    }

    /** Writes {@code length} bytes of {@code src} at {@code offset}, sent straight from {@code src}. @return status as for get */
    synchronized int put(long segmentId, TokenImpl token, long offset, MemorySegment src, long srcOffset, long length) {
        long done = 0;
        try {
            while (done < length) {
                int chunk = (int) Math.min(length - done, DataProtocol.MAX_PAYLOAD);
                request(DataProtocol.OP_PUT, segmentId, token, offset + done, chunk, 0, chunk);
                send(src.asSlice(srcOffset + done, chunk).asByteBuffer());
                int status = readReplyHeader();
                if (status != 0) {
                    return status;
                }
                done += chunk;
            }
            return 0;
        } catch (IOException | WireFormatException e) {
            return failed();
        }
    }

    /** Compare-and-swap at the home; the old value is in {@link #value()}. @return status as for get */
    synchronized int cas(long segmentId, TokenImpl token, long offset, long cmpval, long swpval) {
        request(DataProtocol.OP_CAS, segmentId, token, offset, cmpval, swpval, 0);
        return exchangeOrIo();
    }

    /** Notification extension: asks the home to notify the segment's creator. @return status as for get */
    synchronized int notification(long segmentId, TokenImpl token, long offset, long value) {
        request(DataProtocol.OP_NOTIFY, segmentId, token, offset, value, 0, 0);
        return exchangeOrIo();
    }

    /**
     * Loads a 1, 2, 4 or 8-byte value (native byte order, as the memory holds it); the bits are
     * in {@link #value()}, sign-extended from the value's width.
     *
     * @return status as for get
     */
    synchronized int load(long segmentId, TokenImpl token, long offset, int width) {
        request(DataProtocol.OP_GET, segmentId, token, offset, width, 0, 0);
        int status = exchangeOrIo();
        if (status == 0) {
            long at = DataProtocol.REPLY_HEADER;
            value = switch (width) {
                case 1 -> inSegment.get(java.lang.foreign.ValueLayout.JAVA_BYTE, at);
                case 2 -> inSegment.get(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, at);
                case 4 -> inSegment.get(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, at);
                default -> inSegment.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, at);
            };
        }
        return status;
    }

    /** Stores the low {@code width} bytes of {@code bits} (native byte order). @return status as for get */
    synchronized int store(long segmentId, TokenImpl token, long offset, int width, long bits) {
        request(DataProtocol.OP_PUT, segmentId, token, offset, width, 0, width);
        long at = DataProtocol.REQUEST_HEADER;
        switch (width) {
            case 1 -> outSegment.set(java.lang.foreign.ValueLayout.JAVA_BYTE, at, (byte) bits);
            case 2 -> outSegment.set(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, at, (short) bits);
            case 4 -> outSegment.set(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, at, (int) bits);
            default -> outSegment.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, at, bits);
        }
        out.position(DataProtocol.REQUEST_HEADER + width);
        return exchangeOrIo();
    }

    private void request(byte op, long segmentId, TokenImpl token, long offset, long a, long b, int payload) {
        DataProtocol.writeRequest(out, op, ++nextRequestId, segmentId, token.tokenId(), token.secretHi(),
            token.secretLo(), offset, a, b, payload);
    }

    private int exchangeOrIo() {
        try {
            return exchange();
        } catch (IOException | WireFormatException e) {
            return failed();
        }
    }

    private int failed() {
        broken = true;
        close();
        return STATUS_IO;
    }

    /** Sends the request in {@code out} (position = its end) and reads the whole reply into {@code in}. */
    private int exchange() throws IOException {
        send(null);
        int status = readReplyHeader();
        int payload = DataProtocol.replyPayload(in.getInt(0));
        in.limit(DataProtocol.REPLY_HEADER + payload);
        fill(in);
        return status;
    }

    /** Sends the request header in {@code out} (position = its end), then {@code payload} if any. */
    private void send(ByteBuffer payload) throws IOException {
        out.flip();
        ByteBuffer[] parts = payload == null ? new ByteBuffer[] {out} : new ByteBuffer[] {out, payload};
        while (out.hasRemaining() || payload != null && payload.hasRemaining()) {
            if (channel.write(parts) == 0) {
                Thread.onSpinWait();
            }
        }
    }

    /** Reads a reply header into {@code in} and checks it; the payload, if any, is still on the wire. */
    private int readReplyHeader() throws IOException {
        in.clear().limit(DataProtocol.REPLY_HEADER);
        fill(in);
        DataProtocol.replyPayload(in.getInt(0));
        if (in.getLong(8) != nextRequestId) {
            throw new WireFormatException("reply for request " + in.getLong(8) + ", expected " + nextRequestId);
        }
        value = in.getLong(16);
        int status = in.get(4) & 0xff;
        if (status == (DataProtocol.STATUS_MALFORMED & 0xff)) {
            throw new WireFormatException("the home node rejected a request as malformed");
        }
        return status;
    }

    private void fill(ByteBuffer in) throws IOException {
        long start = System.nanoTime();
        while (in.hasRemaining()) {
            int n = channel.read(in);
            if (n < 0) {
                throw new EOFException("home node closed the connection");
            }
            if (n > 0) {
                start = System.nanoTime();
                continue;
            }
            long idle = System.nanoTime() - start;
            if (idle < SPIN_NANOS) {
                Thread.onSpinWait();
            } else if (idle < SPIN_NANOS + YIELD_NANOS) {
                Thread.yield();
            } else {
                channel.configureBlocking(true);
                try {
                    if (channel.read(in) < 0) {
                        throw new EOFException("home node closed the connection");
                    }
                } finally {
                    channel.configureBlocking(false);
                }
                start = System.nanoTime();
            }
        }
    }

    @Override
    public void close() {
        broken = true;
        try {
            channel.close();
        } catch (IOException ignored) {
            // Nothing to tell a home that is gone.
        }
    }
}
