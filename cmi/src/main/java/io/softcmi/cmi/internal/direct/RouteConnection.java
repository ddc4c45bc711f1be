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
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The writing side of one connection between two processes (docs/notifications.md, "Direct
 * delivery"; {@link InletFrames}), shared by the context's routes to the other process's inlets
 * and by its inlet's acknowledgements to the other process. The context's {@link InletServer}
 * thread reads the connection ({@link InletConnection}) and passes this side the other
 * process's acknowledgements of its frames. One TCP connection carries both directions, so
 * an answer carries the TCP acknowledgement of the message it answers, as in a raw ping-pong
 * (two one-way connections cost 2-4 us more per round trip here, measured 2026-11-27).
 *
 * <p>The channel is non-blocking. A caller that must wait (a full socket, an acknowledgement not
 * in yet) polls for up to {@value #MAX_POLL_NANOS} ns (not while this JVM's pollers back off after
 * a preemption, {@link PollBudget#contended()}; one poller per JVM), then blocks, never past the
 * context's remote timeout: then the connection fails, with every frame not yet acknowledged,
 * with TRANSIENT. A caller on the inlet's own thread (a handler) keeps serving the inlet while it
 * waits ({@link InletServer#serveWhileWaiting}). One lock serialises writing; the inlet's
 * acknowledgements never wait for it: the holder writes them before it lets go.
 */
final class RouteConnection {
    /** Longest poll for an acknowledgement before blocking. */
    static final long MAX_POLL_NANOS = 50_000;
    /** Refusals queued for writing beyond which the inlet stops reading the connection. */
    static final int MAX_QUEUED_REFUSALS = 4096;
    private final SocketChannel channel;
    private final InletServer server;
    /** Whether this process opened the connection (else the other one did). */
    final boolean outgoing;
    /** The reading side, set once before the connection is served. */
    private InletConnection inbound;
    private final ReentrantLock lock = new ReentrantLock();
    private final ByteBuffer header = ByteBuffer.allocateDirect(InletFrames.HEADER).order(ByteOrder.LITTLE_ENDIAN);
    /** HELLO and acknowledgement frames not yet written, in write mode (guarded by lock). */
    private final ByteBuffer control = ByteBuffer.allocateDirect(64 * InletFrames.HEADER).order(ByteOrder.LITTLE_ENDIAN);
    /** Refusals of the other process's frames to write, {@code {seq, status}} in order. */
    private final ConcurrentLinkedQueue<long[]> refusalsOut = new ConcurrentLinkedQueue<>();
    private final AtomicInteger refusalsQueued = new AtomicInteger();
    /** The inlet has stored frames to acknowledge and the lock was taken: its holder writes them. */
    private volatile boolean ackWanted;
    /** The other process's frames acknowledged so far, by an ACK or riding on a frame (guarded by lock). */
    private volatile long inboundAcked;
    /** For waits for room: a selector of this channel alone, opened at the first (guarded by lock). */
    private volatile Selector roomSelector;
    /** The key of the last OPEN sent per inlet (guarded by lock): a route with another key opens it again. */
    private final Map<Integer, byte[]> opened = new java.util.HashMap<>();
    private volatile long sent; // written under lock
    /** The connection this one was retired for ({@link #moveTo}), written under lock. */
    private volatile RouteConnection movedTo;
    private final AtomicLong acknowledged = new AtomicLong();
    /** Refusals of this process's frames, by frame number, until their callers take them. */
    private final Map<Long, Integer> refusals = new ConcurrentHashMap<>();
    /** Refusals read from the other process (server thread). */
    private volatile long refusalsRead;
    /** The other process's inlet endpoint ({@code host:port}), null until its HELLO came on a connection it opened. */
    private volatile String endpoint;
    /** Why the connection failed (a status), 0 while it has not. */
    private volatile int failed;
    private final Object waitLock = new Object();
    private final AtomicInteger waiters = new AtomicInteger();

    private RouteConnection(SocketChannel channel, InletServer server, boolean outgoing, String endpoint) {
        this.channel = channel;
        this.server = server;
        this.outgoing = outgoing;
        this.endpoint = endpoint;
    }

    /**
     * Connects to another process's inlet server within the deadline, says HELLO and hands the
     * connection to this context's server to read.
     *
     * @param address any inlet of the process
     * @param server this context's inlet server
     * @param hello this end's HELLO payload (its node address and inlet endpoint)
     * @param timeoutNanos how long connecting may take
     * @throws IOException if the process cannot be reached in time
     */
    static RouteConnection connect(InletAddress address, InletServer server, ByteBuffer hello, long timeoutNanos) throws IOException {
        SocketChannel ch = SocketChannel.open();
        try {
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ch.socket().connect(new InetSocketAddress(address.host(), address.port()),
                (int) Math.max(1, Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(timeoutNanos))));
            ch.configureBlocking(false);
            RouteConnection c = new RouteConnection(ch, server, true, address.endpoint());
            c.inbound = new InletConnection(server, ch, c);
            c.lock.lock();
            try {
                // This end's HELLO, then the other server's key from the address: the proof that
                // this process holds an address of one of its inlets (InletConnection#hello).
                ByteBuffer proved = ByteBuffer.allocate(hello.remaining() + InletAddress.KEY_LENGTH)
                    .order(ByteOrder.LITTLE_ENDIAN).put(hello.duplicate()).put(address.serverKey()).flip();
                c.hello(proved);
                c.flushControl(System.nanoTime() + timeoutNanos);
            } finally {
                c.lock.unlock();
            }
            server.adopt(c.inbound);
            return c;
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /**
     * A connection another process opened to this context's server: says HELLO (written by
     * the server as soon as the socket takes it).
     *
     * @return its reading side
     */
    static InletConnection accepted(SocketChannel ch, InletServer server, ByteBuffer hello) throws IOException {
        ch.configureBlocking(false);
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        RouteConnection c = new RouteConnection(ch, server, false, null);
        c.inbound = new InletConnection(server, ch, c);
        c.lock.lock();
        try {
            c.hello(hello);
            c.writeControl();
        } finally {
            c.lock.unlock();
        }
        return c.inbound;
    }

    private void hello(ByteBuffer payload) {
        ByteBuffer p = payload.duplicate();
        header(InletFrames.HELLO, 0, 0, p.remaining(), 0, 0, 0, 0);
        control.put(header).put(p);
    }

    /** @return the other process's inlet endpoint, or null while unknown */
    String endpoint() {
        return endpoint;
    }

    /** The other process's HELLO named its inlet endpoint (server thread). */
    void endpoint(String endpoint) {
        this.endpoint = endpoint;
    }

    /** @return the local and the remote port of the connection: {@code {local, remote}} */
    int[] ports() {
        java.net.Socket so = channel.socket();
        return new int[] {so.getLocalPort(), so.getPort()};
    }

    boolean broken() {
        return failed != 0;
    }

    /**
     * Retires this connection for this context's routes in favour of {@code next} (both processes
     * use {@code next}), if every frame sent on it is acknowledged and no other thread is sending
     * on it now; from then on {@link #send} refuses, so that no frame follows on this connection
     * a frame sent on {@code next}: every route's order holds across the move.
     *
     * @return whether this connection is now retired in favour of {@code next}
     */
    boolean moveTo(RouteConnection next) {
        if (!lock.tryLock()) {
            return false;
        }
        try {
            if (movedTo == null && failed == 0 && acknowledged.get() >= sent) {
                movedTo = next;
            }
            return movedTo == next;
        } finally {
            lock.unlock();
        }
    }

    /** @return the connection this one was retired for, or null */
    RouteConnection movedTo() {
        return movedTo;
    }

    /**
     * Sends one PUT or PUT_NOTIFY (after the inlet's OPEN, the first time), carrying the
     * acknowledgement of what the inlet stored of the other process's frames.
     *
     * @return the frame's sequence number, for {@link #await}; 0 if this connection was retired
     *     ({@link #movedTo()}: send on that one)
     * @throws io.softcmi.cmi.CmiAccessException TRANSIENT if the connection failed (now or before)
     */
    long send(InletAddress inlet, int op, long offset, MemorySegment src, long notifyOffset, long value, long deadline) {
        lockOrServe();
        try {
            if (movedTo != null) {
                return 0;
            }
            failIfBroken(inlet, offset);
            try {
                if (!java.util.Arrays.equals(opened.put(inlet.inletId(), inlet.key()), inlet.key())) {
                    flushControl(deadline);
                    header(InletFrames.OPEN, inlet.inletId(), 0, InletAddress.KEY_LENGTH, 0, 0, 0, 0);
                    write(new ByteBuffer[] {header, ByteBuffer.wrap(inlet.key())}, deadline);
                }
                // The counts first, then the refusals they cover: every refusal counted is written before this frame.
                long ackSeq = inbound.storedSeq();
                long ackRefusals = inbound.refusals();
                flushControl(deadline);
                header(op, inlet.inletId(), offset, src.byteSize(), notifyOffset, value, ackSeq, ackRefusals);
                write(src.byteSize() == 0 ? new ByteBuffer[] {header} : new ByteBuffer[] {header, payload(src)}, deadline);
                inboundAcked = Math.max(inboundAcked, ackSeq);
            } catch (IOException e) {
                fail(CmiAccessError.TRANSIENT);
                failIfBroken(inlet, offset);
            }
            sent = sent + 1;
            return sent;
        } finally {
            if (failed != 0) {
                closeRoomSelector();
            }
            lock.unlock();
            writeAcknowledgements();
        }
    }

    /**
     * Takes the lock; if another thread holds it (it may wait for the other process), and this
     * is the inlet's thread, in a handler, serves the inlet meanwhile: the holder may wait for the
     * other process, whose handler may wait for this one's acknowledgements (found by
     * DirectDeliveryTest: two handlers that answer each other).
     */
    private void lockOrServe() {
        if (lock.tryLock()) {
            return;
        }
        if (!server.onServerThread()) {
            lock.lock();
            return;
        }
        while (true) {
            server.serveWhileWaiting();
            try {
                if (lock.tryLock(1, TimeUnit.MILLISECONDS)) {
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                lock.lock();
                return;
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

    private void header(int op, int inlet, long offset, long length, long notifyOffset, long value, long ackSeq, long ackRefusals) {
        header.clear();
        header.putInt(op).putInt(inlet).putLong(offset).putLong(length).putLong(notifyOffset).putLong(value)
            .putLong(ackSeq).putLong(ackRefusals).putLong(0).flip();
    }

    // ---- The inlet's acknowledgements of the other process's frames.

    /** Frame {@code seq} of the other process was refused with {@code status} (server thread; before it counts it). */
    void refuse(long seq, int status) {
        refusalsOut.add(new long[] {seq, status});
        refusalsQueued.incrementAndGet();
    }

    /** @return whether so many refusals wait to be written that the inlet should stop reading */
    boolean backlogged() {
        return refusalsQueued.get() >= MAX_QUEUED_REFUSALS;
    }

    /**
     * The inlet served what it read (server thread, after the handlers): unless a frame of this
     * process already carried it, acknowledges what it stored, now if the lock is free, else by
     * the holder before it lets go. Never waits.
     */
    void acknowledgeInbound() {
        if (inbound.storedSeq() > inboundAcked || refusalsQueued.get() > 0 || controlPending) {
            ackWanted = true;
            writeAcknowledgements();
        }
    }

    /** Whether control bytes wait for room in the socket (read without the lock by the server thread). */
    private volatile boolean controlPending;

    /** @return whether acknowledgements or a HELLO wait for room in the socket */
    boolean controlPending() {
        return controlPending;
    }

    /** Writes the acknowledgements the inlet wants, while nobody else holds the lock (any thread; never waits). */
    private void writeAcknowledgements() {
        if (lock.isHeldByCurrentThread()) {
            return; // a handler serving its inlet in the middle of this connection's write: done after it
        }
        while (ackWanted && failed == 0 && lock.tryLock()) {
            try {
                ackWanted = false;
                long stored = inbound.storedSeq(); // first: the refusals drained next cover it
                drainRefusals();
                if (stored > inboundAcked && refusalsOut.isEmpty() && control.remaining() >= InletFrames.HEADER) {
                    header(InletFrames.ACK, 0, stored, 0, 0, 0, 0, 0);
                    control.put(header);
                    inboundAcked = stored;
                }
                writeControl();
            } catch (IOException e) {
                fail(CmiAccessError.TRANSIENT);
            } finally {
                lock.unlock();
            }
        }
    }

    /** Moves queued refusals into the control buffer while it has room (lock held). */
    private void drainRefusals() {
        long[] r;
        while (control.remaining() >= InletFrames.HEADER && (r = refusalsOut.poll()) != null) {
            refusalsQueued.decrementAndGet();
            header(InletFrames.ACK, 0, r[0], 0, 0, r[1], 0, 0);
            control.put(header);
        }
    }

    /** Writes what the socket takes of the control buffer now (lock held); asks the server to finish it when there is room. */
    private void writeControl() throws IOException {
        if (control.position() > 0) {
            control.flip();
            try {
                channel.write(control);
            } finally {
                control.compact();
            }
        }
        boolean pending = control.position() > 0 || refusalsQueued.get() > 0;
        if (pending != controlPending) {
            controlPending = pending;
            server.wantWrite(inbound, pending);
        }
    }

    /** Writes the control buffer and every queued refusal, waiting for room (lock held). */
    private void flushControl(long deadline) throws IOException {
        while (true) {
            drainRefusals();
            writeControl();
            if (control.position() == 0 && refusalsOut.isEmpty()) {
                return;
            }
            waitForRoom(deadline);
        }
    }

    // ---- The other process's acknowledgements of this process's frames (server thread).

    /** An ACK frame: every frame up to {@code seq} stored (status 0), or frame {@code seq} refused. */
    void acknowledged(long seq, int status) {
        if (status != 0) {
            refusals.put(seq, status);
            refusalsRead = refusalsRead + 1;
        } else {
            acknowledged.accumulateAndGet(seq, Math::max);
        }
        wakeWaiters();
    }

    /** A frame carried the acknowledgement of every frame up to {@code seq}, with {@code count} refusals among all so far. */
    void acknowledgedByRide(long seq, long count) {
        if (refusalsRead >= count && acknowledged.get() < seq) {
            acknowledged.accumulateAndGet(seq, Math::max);
            wakeWaiters();
        }
    }

    private void wakeWaiters() {
        if (waiters.get() > 0) {
            synchronized (waitLock) {
                waitLock.notifyAll();
            }
        }
    }

    /** @return whether frame {@code seq} is acknowledged (or the connection failed); never waits */
    boolean done(long seq) {
        return acknowledged.get() >= seq || failed != 0;
    }

    /**
     * Waits for frame {@code seq}'s acknowledgement or refusal, at most until {@code deadline}:
     * then the connection fails (TRANSIENT). Several threads may wait for one frame at once. The
     * outcome is {@link #outcome}'s.
     */
    void awaitAnswer(long seq, long deadline) {
        if (!done(seq)) {
            if (server.onServerThread()) {
                awaitServing(seq, deadline);
            } else {
                awaitBlocking(seq, deadline);
            }
        }
    }

    /**
     * The outcome of frame {@code seq} once {@link #done}: its refusal's status (kept until
     * {@link #forgetRefusal}), else 0 if it was acknowledged, else the connection's failure.
     * Never waits.
     *
     * @return 0 if the frame is stored, else a status for {@link InletFrames#error}
     */
    int outcome(long seq) {
        Integer refused = refusals.get(seq);
        if (refused != null) {
            return refused;
        }
        if (acknowledged.get() >= seq) {
            return 0;
        }
        int why = failed;
        return why != 0 ? why : InletFrames.status(CmiAccessError.TRANSIENT);
    }

    /** Drops the refusal of frame {@code seq} once its outcome is settled ({@link RoutePut}). */
    void forgetRefusal(long seq) {
        refusals.remove(seq);
    }

    /** A handler on the inlet's thread waits: it reads for itself, serving the inlet. */
    private void awaitServing(long seq, long deadline) {
        long pollUntil = System.nanoTime() + MAX_POLL_NANOS;
        while (!done(seq)) {
            server.serveWhileWaiting();
            if (done(seq)) {
                return;
            }
            long now = System.nanoTime();
            if (now - deadline >= 0) {
                fail(CmiAccessError.TRANSIENT);
                return;
            }
            if (now - pollUntil < 0) {
                Thread.onSpinWait();
            } else {
                java.util.concurrent.locks.LockSupport.parkNanos(100_000);
            }
        }
    }

    /** Another thread waits: polls briefly while the inlet thread reads, then blocks until it passes the acknowledgement on. */
    private void awaitBlocking(long seq, long deadline) {
        long now = System.nanoTime();
        if (PollBudget.enabled() && !PollBudget.contended() && PollBudget.startPolling()) {
            try {
                long end = now + MAX_POLL_NANOS;
                long previous = now;
                while (!done(seq)) {
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
        boolean interrupted = false;
        waiters.incrementAndGet();
        try {
            synchronized (waitLock) {
                while (!done(seq)) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        break;
                    }
                    try {
                        waitLock.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                    } catch (InterruptedException e) {
                        interrupted = true; // waits on: an interrupted caller must not fail the connection other threads share
                    }
                }
            }
        } finally {
            waiters.decrementAndGet();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        if (!done(seq)) {
            fail(CmiAccessError.TRANSIENT); // no acknowledgement within the remote timeout
        }
    }

    private void write(ByteBuffer[] buffers, long deadline) throws IOException {
        ByteBuffer last = buffers[buffers.length - 1];
        while (last.hasRemaining()) {
            if (channel.write(buffers) == 0) {
                waitForRoom(deadline);
            }
        }
    }

    /** Waits until the socket takes more, at most until {@code deadline} (lock held); the inlet's thread serves its inlet meanwhile. */
    private void waitForRoom(long deadline) throws IOException {
        boolean inletThread = server.onServerThread();
        if (inletThread) {
            server.serveWhileWaiting();
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            fail(CmiAccessError.TRANSIENT);
            throw new IOException("no room in the connection to the other process within the remote timeout");
        }
        if (roomSelector == null) {
            roomSelector = Selector.open();
            channel.register(roomSelector, SelectionKey.OP_WRITE);
        }
        // The inlet's own thread (a handler) serves its inlet every millisecond while it waits.
        roomSelector.select(inletThread ? 1 : Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        roomSelector.selectedKeys().clear();
    }

    private void failIfBroken(InletAddress inlet, long offset) {
        if (failed != 0) {
            throw Errors.access(InletFrames.error(failed), inlet.inletId(), offset);
        }
    }

    /** Fails the connection: every frame not yet acknowledged is TRANSIENT to its caller; the socket closes. */
    void fail(CmiAccessError why) {
        if (failed == 0) {
            failed = InletFrames.status(why);
        }
        try {
            channel.close();
        } catch (IOException e) {
            // closing anyway
        }
        wakeWaiters();
        Selector room = roomSelector;
        if (room != null) {
            room.wakeup(); // a holder waiting for room notices the closed channel
        }
        if (lock.tryLock()) { // else the holder closes it when its write fails
            try {
                closeRoomSelector();
            } finally {
                lock.unlock();
            }
        }
    }

    private void closeRoomSelector() {
        if (roomSelector != null) {
            try {
                roomSelector.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
    }

    /** Closes the connection (the context ends). */
    void close() {
        fail(CmiAccessError.TRANSIENT);
    }
}
