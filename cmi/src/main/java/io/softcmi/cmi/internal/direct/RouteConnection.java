package io.softcmi.cmi.internal.direct;

import io.softcmi.cmi.CmiAccessError;
import io.softcmi.cmi.internal.Errors;
import io.softcmi.cmi.internal.PollBudget;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A context's connection to one process's {@link InletServer}, shared by the context's routes to
 * that process's inlets (docs/notifications.md, "Direct delivery"). Sends frames
 * ({@link InletFrames}) and reads the inlet's acknowledgements when a caller asks for an outcome.
 * The channel is non-blocking; a caller that must wait (a full socket, an acknowledgement not in
 * yet) first lets the context's inlet acknowledge what it served (a handler on the inlet's thread
 * must not make another process wait for it), polls for up to {@value #MAX_POLL_NANOS} ns (not
 * while this JVM's pollers back off after a preemption, {@link PollBudget#contended()}; one
 * poller per JVM), then blocks in a selector,
 * never past the context's remote timeout: then the connection fails, with every frame not yet
 * acknowledged, with TRANSIENT. One lock serialises writing and reading; while a writer waits
 * for room it reads acknowledgements too, so neither side can fill the other's buffers for good.
 */
final class RouteConnection {
    /** The acknowledgement channel is read at least once per this many plus one frames sent. */
    private static final long READ_ACKS_EVERY = 127;
    /** Longest poll for an acknowledgement or for room before blocking. */
    static final long MAX_POLL_NANOS = 50_000;
    private final SocketChannel channel;
    private final Selector selector;
    private final SelectionKey key;
    private final byte[] senderAddress;
    /**
     * Run before the caller waits: on the context's inlet thread it serves the inlet's
     * connections once and returns true ({@link InletServer#serveWhileWaiting}); elsewhere false.
     */
    private final java.util.function.BooleanSupplier beforeWait;
    private final ReentrantLock lock = new ReentrantLock();
    private final ByteBuffer header = ByteBuffer.allocateDirect(InletFrames.HEADER).order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer acks = ByteBuffer.allocateDirect(4096).order(ByteOrder.LITTLE_ENDIAN);
    /** The key of the last OPEN sent per inlet (guarded by lock): a route with another key opens it again. */
    private final Map<Integer, byte[]> opened = new java.util.HashMap<>();
    private final Map<Long, Integer> refusals = new ConcurrentHashMap<>();
    private long sent; // guarded by lock
    private final java.util.concurrent.atomic.AtomicLong acknowledged = new java.util.concurrent.atomic.AtomicLong();
    /** This connection's random id, sent with each OPEN: acknowledgements riding on answers name it. */
    private final long id = new java.security.SecureRandom().nextLong() | 1;
    /** Refusal records read from the acknowledgement channel. */
    private volatile long refusalsRead;
    /** This connection's target ({@code host:port}), for acknowledgements riding on frames to it. */
    private final String endpoint;
    /** This context's inlet connections by the endpoint of the process at their other end (null: none). */
    private final java.util.function.Function<String, InletConnection> peers;
    /** This context's own inlet endpoint ({@code ""} while it serves none), sent with each OPEN. */
    private final java.util.function.Supplier<String> ownEndpoint;
    /** Why the connection failed (a status), 0 while it has not. */
    private volatile int failed;

    private RouteConnection(SocketChannel channel, Selector selector, byte[] senderAddress, java.util.function.BooleanSupplier beforeWait,
            String endpoint, java.util.function.Function<String, InletConnection> peers,
            java.util.function.Supplier<String> ownEndpoint) throws IOException {
        this.beforeWait = beforeWait;
        this.endpoint = endpoint;
        this.peers = peers;
        this.ownEndpoint = ownEndpoint;
        this.channel = channel;
        this.selector = selector;
        this.senderAddress = senderAddress;
        this.key = channel.register(selector, SelectionKey.OP_READ);
    }

    /**
     * Connects within the deadline.
     *
     * @param address any inlet of the process
     * @param senderAddress the sending node's address bytes (sent with each OPEN)
     * @param timeoutNanos how long connecting may take
     * @param beforeWait run before a caller waits for the other process
     * @param peers this context's inlet connections by the endpoint of the process at their other end
     * @param ownEndpoint this context's own inlet endpoint, {@code ""} while it serves none
     * @throws IOException if the process cannot be reached in time
     */
    static RouteConnection open(InletAddress address, byte[] senderAddress, long timeoutNanos, java.util.function.BooleanSupplier beforeWait,
            java.util.function.Function<String, InletConnection> peers, java.util.function.Supplier<String> ownEndpoint)
            throws IOException {
        SocketChannel ch = SocketChannel.open();
        Selector sel = null;
        try {
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ch.socket().connect(new InetSocketAddress(address.host(), address.port()),
                (int) Math.max(1, Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(timeoutNanos))));
            ch.configureBlocking(false);
            sel = Selector.open();
            return new RouteConnection(ch, sel, senderAddress, beforeWait, address.endpoint(), peers, ownEndpoint);
        } catch (IOException | RuntimeException e) {
            ch.close();
            if (sel != null) {
                sel.close();
            }
            throw e;
        }
    }

    boolean broken() {
        return failed != 0;
    }

    /**
     * Sends one PUT or PUT_NOTIFY (after the inlet's OPEN, the first time).
     *
     * @return the frame's sequence number, for {@link #await}
     * @throws io.softcmi.cmi.CmiAccessException TRANSIENT if the connection failed (now or before)
     */
    long send(InletAddress inlet, int op, long offset, MemorySegment src, long notifyOffset, long value, long deadline) {
        lockOrAcknowledge();
        try {
            failIfBroken(inlet, offset);
            try {
                if (!java.util.Arrays.equals(opened.put(inlet.inletId(), inlet.key()), inlet.key())) {
                    byte[] own = ownEndpoint.get().getBytes(java.nio.charset.StandardCharsets.UTF_8);
                    ByteBuffer open = ByteBuffer.allocate(InletAddress.KEY_LENGTH + 16 + senderAddress.length + own.length)
                        .order(ByteOrder.LITTLE_ENDIAN).put(inlet.key()).putLong(id).putInt(senderAddress.length)
                        .put(senderAddress).putInt(own.length).put(own).flip();
                    frame(InletFrames.OPEN, inlet.inletId(), 0, open.remaining(), 0, 0);
                    write(new ByteBuffer[] {header, open}, deadline);
                }
                if ((sent & READ_ACKS_EVERY) == READ_ACKS_EVERY) {
                    readAcks(); // acknowledgements may all ride on answers: keep the channel drained
                }
                frame(op, inlet.inletId(), offset, src.byteSize(), notifyOffset, value);
                write(src.byteSize() == 0 ? new ByteBuffer[] {header} : new ByteBuffer[] {header, payload(src)}, deadline);
            } catch (IOException e) {
                fail(CmiAccessError.TRANSIENT);
                failIfBroken(inlet, offset);
            }
            return ++sent;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes the lock; if another thread holds it (it may wait for the other process), first lets
     * the context's inlet acknowledge what it served, since this thread may be the inlet's, in a
     * handler, and the holder may wait for the other process, whose handler may wait for this
     * one's acknowledgements (found by DirectDeliveryTest: two handlers that answer each other).
     */
    private void lockOrAcknowledge() {
        if (!lock.tryLock()) {
            if (!beforeWait.getAsBoolean()) {
                lock.lock();
                return;
            }
            // The inlet's thread: serve the inlet while the holder may be waiting for its peer.
            while (!lock.tryLock()) {
                try {
                    if (lock.tryLock(1, TimeUnit.MILLISECONDS)) {
                        return;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    lock.lock();
                    return;
                }
                beforeWait.getAsBoolean();
            }
        }
    }

    /** @return the bytes of {@code src} as a buffer: a view, or a copy for a heap segment of another array than {@code byte[]} */
    private static ByteBuffer payload(MemorySegment src) {
        try {
            return src.asByteBuffer();
        } catch (UnsupportedOperationException noView) {
            return ByteBuffer.wrap(src.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        }
    }

    private void frame(int op, int inlet, long offset, long length, long notifyOffset, long value) {
        // What this context's inlet stored of the target process's frames rides along (InletFrames).
        InletConnection back = peers.apply(endpoint);
        long ackConnection = 0;
        long ackSeq = 0;
        long ackRefusals = 0;
        if (back != null) {
            ackConnection = back.peerConnection();
            ackSeq = back.storedSeq(); // first: the count read next then covers every refusal up to it
            ackRefusals = back.refusals();
        }
        header.clear();
        header.putInt(op).putInt(inlet).putLong(offset).putLong(length).putLong(notifyOffset).putLong(value)
            .putLong(ackConnection).putLong(ackSeq).putLong(ackRefusals).flip();
    }

    /**
     * Frames up to {@code seq} of connection {@code connection} (this one, or an earlier one to
     * the same process: then nothing) are stored at the target, with {@code refusals} refusal records
     * written for them ({@link InletFrames}): counts them acknowledged if every one of those
     * refusals has been read here (else the channel must be read first).
     */
    void acknowledgedByPeer(long connection, long seq, long refusals) {
        if (connection == id && refusals == refusalsRead) {
            acknowledged.accumulateAndGet(seq, Math::max);
        }
    }

    private void write(ByteBuffer[] buffers, long deadline) throws IOException {
        ByteBuffer last = buffers[buffers.length - 1];
        while (last.hasRemaining()) {
            if (channel.write(buffers) == 0) {
                readAcks(); // the inlet may wait for room for its acknowledgements
                waitFor(SelectionKey.OP_WRITE | SelectionKey.OP_READ, deadline);
            }
        }
    }

    /** @return whether frame {@code seq} is acknowledged (or the connection failed); reads what has come, without waiting */
    boolean done(long seq) {
        if (acknowledged.get() >= seq || failed != 0) {
            return true;
        }
        if (lock.tryLock()) {
            try {
                readAcks();
            } catch (IOException e) {
                fail(CmiAccessError.TRANSIENT);
            } finally {
                lock.unlock();
            }
        }
        return acknowledged.get() >= seq || failed != 0;
    }

    /**
     * Waits for frame {@code seq}'s acknowledgement, at most until {@code deadline}.
     *
     * @throws io.softcmi.cmi.CmiAccessException the frame's refusal (TOKEN, SINVAL), or TRANSIENT
     *     if the connection failed or the deadline passed first
     */
    void await(long seq, long segmentId, long offset, long deadline) {
        if (acknowledged.get() < seq) {
            lockOrAcknowledge();
            try {
                while (acknowledged.get() < seq && failed == 0) {
                    readAcks();
                    if (acknowledged.get() < seq) {
                        waitFor(SelectionKey.OP_READ, deadline);
                    }
                }
            } catch (IOException e) {
                fail(CmiAccessError.TRANSIENT);
            } finally {
                lock.unlock();
            }
        }
        Integer refused = refusals.remove(seq);
        if (refused != null) {
            throw Errors.access(InletFrames.error(refused), segmentId, offset);
        }
        if (acknowledged.get() < seq) {
            throw Errors.access(InletFrames.error(failed), segmentId, offset);
        }
    }

    private void readAcks() throws IOException {
        int n;
        while ((n = channel.read(acks)) > 0 || acks.position() >= InletFrames.ACK) {
            acks.flip();
            while (acks.remaining() >= InletFrames.ACK) {
                long seq = acks.getLong();
                int status = acks.getInt();
                acks.getInt();
                if (status != 0) {
                    refusals.put(seq, status);
                    refusalsRead++;
                } else {
                    acknowledged.accumulateAndGet(seq, Math::max);
                }
            }
            acks.compact();
            if (n <= 0) {
                break;
            }
        }
        if (n < 0) {
            throw new IOException("the inlet's process closed the connection");
        }
    }

    /** Polls briefly, then blocks in the selector for {@code ops}, at most until {@code deadline}. */
    private void waitFor(int ops, long deadline) throws IOException {
        boolean inletThread = beforeWait.getAsBoolean();
        long now = System.nanoTime();
        // The other process is answering this connection's traffic right now: poll unless this
        // JVM's pollers back off after a preemption (no hit-rate or runnable-count rule here).
        long limit = PollBudget.enabled() && !PollBudget.contended() ? MAX_POLL_NANOS : 0;
        if (limit > 0 && PollBudget.startPolling()) {
            try {
                long end = now + limit;
                long previous = now;
                while (true) {
                    if ((ops & SelectionKey.OP_READ) != 0 && peekReadable()) {
                        return;
                    }
                    long t = System.nanoTime();
                    if (t - end >= 0 || !PollBudget.stillScheduled(previous, t)) {
                        break;
                    }
                    previous = t;
                    Thread.onSpinWait();
                }
            } finally {
                PollBudget.endPolling();
            }
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            fail(CmiAccessError.TRANSIENT);
            throw new IOException("no acknowledgement from the inlet's process within the remote timeout");
        }
        key.interestOps(ops);
        // The inlet's own thread (a handler) serves its inlet every millisecond while it waits.
        selector.select(inletThread ? 1 : Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        selector.selectedKeys().clear();
    }

    /** One non-blocking read into the acknowledgement buffer: whether anything came. */
    private boolean peekReadable() throws IOException {
        int before = acks.position();
        int n = channel.read(acks);
        if (n < 0) {
            throw new IOException("the inlet's process closed the connection");
        }
        return acks.position() > before;
    }

    private void failIfBroken(InletAddress inlet, long offset) {
        if (failed != 0) {
            throw Errors.access(InletFrames.error(failed), inlet.inletId(), offset);
        }
    }

    private void fail(CmiAccessError why) {
        if (failed == 0) {
            failed = InletFrames.status(why);
        }
        try {
            channel.close();
            selector.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    /** Closes the connection (the context ends). */
    void close() {
        lock.lock();
        try {
            fail(CmiAccessError.TRANSIENT);
        } finally {
            lock.unlock();
        }
    }
}
