package io.softcmi.cmi.internal;

import static io.softcmi.cmi.internal.RemoteConnection.STATUS_IO;
import static io.softcmi.cmi.internal.RemoteConnection.STATUS_TIMEOUT;

import io.softcmi.wire.DataProtocol;
import io.softcmi.wire.TlsChannel;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ByteChannel;
import java.nio.channels.GatheringByteChannel;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The request side of one {@link RemoteConnection}: its one job is to put a request on the
 * wire. It registers the {@link RemoteCall} under a fresh request id, encodes the request's header
 * (and a small payload) into its output buffer and writes it, a bulk payload straight from the
 * caller's memory, under the send lock. A full socket makes it read replies meanwhile (through
 * the {@link ReplyReader}) or, in blocking mode, block under the {@link BlockingWatchdog}.
 *
 * <p><b>Queued requests</b> ({@link #queue}, docs/architecture.md §7.4): a request may be
 * registered and encoded without being written. The next write on the connection carries the
 * queued requests in front of its own request, in one gathered write, and a caller that awaits
 * a queued request writes the queue first ({@link #flush}). Both happen under the send lock, so
 * a queued request still reaches the home before every request registered after it: the
 * connection's order is the order of registration, written or queued.
 */
final class RequestWriter {
    private final RemoteConnection connection;
    /** Where bytes are written: the TLS layer or the socket. */
    private final ByteChannel channel;
    private final GatheringByteChannel gather;
    /** The TLS layer, or null. */
    private final TlsChannel tls;
    /** The calls waiting for a reply, by request id (shared with the {@link ReplyReader}). */
    private final ConcurrentHashMap<Long, RemoteCall> calls;
    private final ReplyReader reader;
    /** Held while one request is written; a caller may hold it across several to keep them together. */
    final ReentrantLock sendLock = new ReentrantLock();
    private final ByteBuffer out = DataProtocol.newBuffer();
    private final MemorySegment outSegment = MemorySegment.ofBuffer(out);
    /** The header of a request that follows a payload in the same write ({@link #sendPayloadThenRequest}). */
    private final ByteBuffer tail = DataProtocol.newBuffer();
    /** Requests queued and not written yet ({@link #queue}), one header each from position 0; empty otherwise. */
    private final ByteBuffer queued = DataProtocol.newBuffer();
    /** What one write gathers: the queued requests, the request, its payload, a request after it. */
    private final ByteBuffer[] parts = new ByteBuffer[4];
    private final AtomicLong nextRequestId = new AtomicLong();
    /** Every request with an id up to this one has been written (or the connection failed): {@link #flush} has nothing to do for it. */
    private volatile long writtenThrough;
    // What is blocked now, for the BlockingWatchdog: the deadline is valid while the flag is set.
    private long writeDeadline;
    private long writeSince;
    private volatile boolean writeBlocked;

    RequestWriter(RemoteConnection connection, ByteChannel channel, GatheringByteChannel gather, TlsChannel tls,
            ConcurrentHashMap<Long, RemoteCall> calls, ReplyReader reader) {
        this.connection = connection;
        this.channel = channel;
        this.gather = gather;
        this.tls = tls;
        this.calls = calls;
        this.reader = reader;
    }

    /** @return whether a write is blocked past its deadline (for the {@link BlockingWatchdog}) */
    boolean blockedPast(long now) {
        return writeBlocked && now - writeDeadline > 0;
    }

    /** @return whether a write has been blocked for longer than {@code stuckNanos} (for the {@link BlockingWatchdog}) */
    boolean stuck(long now, long stuckNanos) {
        return writeBlocked && now - writeSince > stuckNanos;
    }

    /**
     * Sends one request with no bulk payload (a typed store's bits come from {@code c.value},
     * a HELLO's ticket from {@code small}).
     */
    void send(RemoteCall c, byte op, long segmentId, TokenImpl token, long offset, long a, long b, byte[] small,
            long deadline) {
        int payload = small != null ? small.length : op == DataProtocol.OP_PUT ? c.width : 0;
        describe(c, op, segmentId, offset, op == DataProtocol.OP_GET || op == DataProtocol.OP_FILL ? a : payload);
        boolean interrupted = lockForSend();
        try {
            register(c);
            DataProtocol.writeRequest(out, op, c.id, segmentId, token == null ? 0 : token.tokenId(),
                token == null ? 0 : token.secretHi(), token == null ? 0 : token.secretLo(), offset, a, b, payload);
            out.put(5, c.flags);
            if (small != null) {
                out.put(small);
            } else if (payload > 0) {
                putBits(DataProtocol.REQUEST_HEADER, c.width, c.value);
                out.position(DataProtocol.REQUEST_HEADER + payload);
            }
            out.flip();
            write(out, null, null, deadline);
        } catch (IOException e) {
            connection.fail(STATUS_IO);
        } finally {
            unlockAfterSend(interrupted);
        }
    }

    /** Sends a request with payload {@code src} (a store, a diff), written to the socket straight from the caller's memory. */
    void sendPayload(RemoteCall c, byte op, long segmentId, TokenImpl token, long offset, long a, long b, MemorySegment src,
            long deadline) {
        int n = (int) src.byteSize();
        describe(c, op, segmentId, offset, n);
        boolean interrupted = lockForSend();
        try {
            register(c);
            DataProtocol.writeRequest(out, op, c.id, segmentId, token.tokenId(), token.secretHi(),
                token.secretLo(), offset, a, b, n);
            out.flip();
            write(out, payloadOf(src), null, deadline);
        } catch (IOException e) {
            connection.fail(STATUS_IO);
        } finally {
            unlockAfterSend(interrupted);
        }
    }

    /**
     * Queues a request without payload: registers {@code c} and encodes its header, but writes
     * nothing. The next write on this connection carries it in front of its own request (one
     * gathered write, so the home reads both at once and answers both in one write), and
     * {@link #flush} writes it alone when its caller awaits it first. A queue full of requests
     * (57 headers) is written before one more is queued.
     */
    void queue(RemoteCall c, byte op, long segmentId, TokenImpl token, long offset, long a, long b, long deadline) {
        describe(c, op, segmentId, offset, 0);
        boolean interrupted = lockForSend();
        try {
            if (queued.remaining() < DataProtocol.REQUEST_HEADER) {
                write(null, null, null, deadline);
            }
            register(c);
            if (connection.broken()) {
                throw new IOException("connection failed"); // fails c with the connection, as a send would
            }
            ByteBuffer header = queued.slice(queued.position(), DataProtocol.REQUEST_HEADER).order(ByteOrder.LITTLE_ENDIAN);
            DataProtocol.writeRequest(header, op, c.id, segmentId, token.tokenId(), token.secretHi(), token.secretLo(),
                offset, a, b, 0);
            header.put(5, c.flags);
            queued.position(queued.position() + DataProtocol.REQUEST_HEADER);
        } catch (IOException e) {
            connection.fail(STATUS_IO);
        } finally {
            unlockAfterSend(interrupted);
        }
    }

    /**
     * Makes sure {@code c} is on the wire before its caller waits for the reply: if it is still
     * queued ({@link #queue}), writes the queue alone. Costs a volatile read when it was written.
     */
    void flush(RemoteCall c, long deadline) {
        if (c.id > 0 && c.id <= writtenThrough) {
            return; // an id not seen yet (0) takes the lock and looks
        }
        boolean interrupted = lockForSend();
        try {
            if (c.id > writtenThrough && queued.position() > 0 && !connection.broken()) {
                write(null, null, null, deadline);
            }
        } catch (IOException e) {
            connection.fail(STATUS_IO);
        } finally {
            unlockAfterSend(interrupted);
        }
    }

    /**
     * Sends a request with payload {@code src} and, in the same write, a request without payload
     * after it ({@code putAndNotify}'s store and notification): the home finds both in one read
     * and is woken once, not once per request.
     */
    void sendPayloadThenRequest(RemoteCall c, byte op, long segmentId, TokenImpl token, long offset, long a, long b,
            MemorySegment src, RemoteCall next, byte nextOp, long nextOffset, long nextA, long nextB, long deadline) {
        int n = (int) src.byteSize();
        describe(c, op, segmentId, offset, n);
        describe(next, nextOp, segmentId, nextOffset, 0);
        boolean interrupted = lockForSend();
        try {
            register(c);
            register(next);
            DataProtocol.writeRequest(out, op, c.id, segmentId, token.tokenId(), token.secretHi(),
                token.secretLo(), offset, a, b, n);
            out.flip();
            DataProtocol.writeRequest(tail, nextOp, next.id, segmentId, token.tokenId(), token.secretHi(),
                token.secretLo(), nextOffset, nextA, nextB, 0);
            tail.put(5, next.flags);
            tail.flip();
            write(out, payloadOf(src), tail, deadline);
        } catch (IOException e) {
            connection.fail(STATUS_IO);
        } finally {
            unlockAfterSend(interrupted);
        }
    }

    /** Records what a call asks for (for its reply and its JFR event). */
    private static void describe(RemoteCall c, byte op, long segmentId, long offset, long bytes) {
        c.op = op;
        c.segmentId = segmentId;
        c.offset = offset;
        c.bytes = bytes;
    }

    /** Gives the call its request id and registers it for its reply. Under {@link #sendLock}. */
    private void register(RemoteCall c) {
        c.id = nextRequestId.incrementAndGet();
        calls.put(c.id, c);
    }

    /**
     * Takes the send lock. In blocking mode an interrupt would close the socket in the write, so
     * it is cleared here and set again by {@link #unlockAfterSend}.
     *
     * @return whether the caller's thread was interrupted
     */
    private boolean lockForSend() {
        boolean interrupted = connection.blocking() && Thread.interrupted();
        sendLock.lock();
        return interrupted;
    }

    private void unlockAfterSend(boolean interrupted) {
        sendLock.unlock();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** @return {@code src} as a buffer the socket can take: the segment itself where it can be one, else a heap copy */
    private static ByteBuffer payloadOf(MemorySegment src) {
        return RemoteConnection.hasByteBuffer(src) ? src.asByteBuffer() : ByteBuffer.wrap(src.toArray(ValueLayout.JAVA_BYTE));
    }

    private void putBits(int at, int width, long bits) {
        switch (width) {
            case 1 -> outSegment.set(ValueLayout.JAVA_BYTE, at, (byte) bits);
            case 2 -> outSegment.set(ValueLayout.JAVA_SHORT_UNALIGNED, at, (short) bits);
            case 4 -> outSegment.set(ValueLayout.JAVA_INT_UNALIGNED, at, (int) bits);
            default -> outSegment.set(ValueLayout.JAVA_LONG_UNALIGNED, at, bits);
        }
    }

    /**
     * Writes, in one gathered write, the queued requests ({@link #queue}), then {@code request}
     * (flipped), then {@code payload}, then {@code last}; any of the three may be null. When the
     * socket is full it reads replies meanwhile if nobody else does (so two ends that both write
     * cannot deadlock), and backs off in short parks; past the deadline the connection fails. In
     * blocking mode the write blocks, and the {@link BlockingWatchdog} does both. Under the send
     * lock.
     */
    private void write(ByteBuffer request, ByteBuffer payload, ByteBuffer last, long deadline) throws IOException {
        if (connection.broken()) {
            throw new IOException("connection failed");
        }
        int n = 0;
        if (queued.position() > 0) {
            queued.flip();
            parts[n++] = queued;
        }
        if (request != null) {
            parts[n++] = request;
        }
        if (payload != null) {
            parts[n++] = payload;
        }
        if (last != null) {
            parts[n++] = last;
        }
        if (n == 0) {
            return;
        }
        if (connection.blocking()) {
            writeDeadline = deadline;
            writeSince = System.nanoTime();
            writeBlocked = true;
        }
        try {
            while (anyRemaining(n)) {
                long w = n == 1 ? channel.write(parts[0]) : gather.write(parts, 0, n);
                if (w > 0) {
                    continue;
                }
                awaitRoom(deadline);
            }
            while (tls != null && !tls.flush()) {
                awaitRoom(deadline); // TLS took the last bytes but could not send them all yet
            }
            writtenThrough = nextRequestId.get();
        } finally {
            queued.clear();
            Arrays.fill(parts, null);
            writeBlocked = false;
        }
    }

    private boolean anyRemaining(int n) {
        for (int i = 0; i < n; i++) {
            if (parts[i].hasRemaining()) {
                return true;
            }
        }
        return false;
    }

    /** The socket is full: reads replies meanwhile if nobody else does, then backs off briefly. */
    private void awaitRoom(long deadline) throws IOException {
        reader.pumpIfFree();
        if (System.nanoTime() - deadline > 0) {
            connection.fail(STATUS_TIMEOUT);
            throw new IOException("the home did not take a request before the deadline");
        }
        LockSupport.parkNanos(20_000);
    }
}
