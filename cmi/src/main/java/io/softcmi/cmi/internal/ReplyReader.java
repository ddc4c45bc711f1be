package io.softcmi.cmi.internal;

import static io.softcmi.cmi.internal.RemoteConnection.STATUS_IO;
import static io.softcmi.cmi.internal.RemoteConnection.STATUS_TIMEOUT;

import io.softcmi.wire.DataProtocol;
import io.softcmi.wire.TlsChannel;
import io.softcmi.wire.WireFormatException;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ByteChannel;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The reply side of one {@link RemoteConnection}: owns the input buffer and the reader role.
 * Its one job is to wait for a caller's reply ({@link #await}): whichever waiting thread holds
 * the role reads replies for everyone, polling for a {@link PollBudget} and then blocking (in
 * the selector, or in {@code read} in blocking mode under the {@link BlockingWatchdog}), and
 * dispatches each reply into its {@link RemoteCall}, payload included; a writer whose socket is full
 * ({@link #pumpIfFree}) and the watchdog ({@link #drainForBlockedWriter}) read here too when
 * nobody holds the role.
 */
final class ReplyReader {
    /** Replies with at most this much payload are decoded from the input buffer whole. */
    private static final int SMALL_REPLY = 64;
    private static final int IN_CAPACITY = 64 * 1024;

    private final RemoteConnection connection;
    /** Where bytes are read: the TLS layer or the socket. */
    private final ByteChannel channel;
    /** The TLS layer, or null. */
    private final TlsChannel tls;
    private final Selector selector;
    /** The calls waiting for a reply, by request id (shared with the {@link RequestWriter}). */
    private final ConcurrentHashMap<Long, RemoteCall> calls;
    private final ReentrantLock readLock = new ReentrantLock();
    /** The socket's input stream in blocking mode, for {@link InputStream#available()} (FIONREAD). */
    private InputStream pending;
    /** A plain connection's socket, once it is in blocking mode ({@link #goBlocking}); else null. */
    private SocketChannel socket;
    /** The writer's send lock: the socket's mode changes only while no request is being written. */
    private ReentrantLock sendLock;
    /**
     * Whether a blocking-mode connection's socket is non-blocking now, for the polls
     * ({@link #readsWhilePolling}); under {@link #readLock}.
     */
    private boolean nonBlockingNow;
    /** Polls that read bytes from the non-blocking socket (for tests); under {@link #readLock}. */
    private long polledReads;
    // What is blocked now, for the BlockingWatchdog: the deadline is valid while the flag is set.
    private long readDeadline;
    private volatile boolean readBlocked;
    // Reader state, guarded by readLock.
    private final ByteBuffer in = ByteBuffer.allocateDirect(IN_CAPACITY).order(ByteOrder.LITTLE_ENDIAN);
    private final MemorySegment inSegment = MemorySegment.ofBuffer(in);
    private final PollBudget budget = new PollBudget(RemoteConnection.MAX_POLL_NANOS, true);
    private ByteBuffer bulk;
    private RemoteCall bulkCall;
    private long bulkDiscard;

    ReplyReader(RemoteConnection connection, ByteChannel channel, TlsChannel tls, Selector selector,
            ConcurrentHashMap<Long, RemoteCall> calls) {
        this.connection = connection;
        this.channel = channel;
        this.tls = tls;
        this.selector = selector;
        this.calls = calls;
    }

    /**
     * Blocking mode (before the connection is shared): the reader blocks in {@code read} on
     * {@code socket}, and polls by reading it in non-blocking mode ({@link #readsWhilePolling}).
     *
     * @param socket the connection's socket, in blocking mode
     * @param pendingBytes its input stream, whose {@code available()} says how many bytes wait
     * @param sendLock the writer's send lock
     */
    void goBlocking(SocketChannel socket, InputStream pendingBytes, ReentrantLock sendLock) {
        this.socket = socket;
        this.pending = pendingBytes;
        this.sendLock = sendLock;
    }

    /**
     * Puts the socket in non-blocking mode for a poll, so that each look is one {@code read}
     * (nothing waiting: it returns at once) and the look that finds the reply has read it, where
     * a look through {@code available()} cost an {@code ioctl} and then the {@code read}. The
     * socket stays non-blocking across calls until a wait blocks ({@link #blockingAgain}), so a
     * client whose polls keep paying switches it once. Only while no request is being written:
     * a writer blocked in a full socket holds the channel's write lock, which the switch takes.
     *
     * @return whether the socket is non-blocking now (else the poll looks through {@code available()})
     */
    private boolean readsWhilePolling() throws IOException {
        if (nonBlockingNow) {
            return true;
        }
        if (!sendLock.tryLock()) {
            return false;
        }
        try {
            socket.configureBlocking(false);
            nonBlockingNow = true;
            return true;
        } finally {
            sendLock.unlock();
        }
    }

    /** @return polls that read bytes from the socket in non-blocking mode (for tests) */
    long polledReads() {
        return polledReads;
    }

    /** Back to blocking mode before a blocking {@code read} (a writer in a non-blocking write holds the switch for microseconds). */
    private void blockingAgain() throws IOException {
        if (nonBlockingNow) {
            socket.configureBlocking(true);
            nonBlockingNow = false;
        }
    }

    /** @return whether the reader is blocked in {@code read} past its deadline (for the {@link BlockingWatchdog}) */
    boolean blockedPast(long now) {
        return readBlocked && now - readDeadline > 0;
    }

    /**
     * For the {@link BlockingWatchdog}: reads the replies waiting for a writer that is blocked
     * while nobody reads, unless someone holds the reader role.
     */
    void drainForBlockedWriter() {
        if (readLock.tryLock()) {
            try {
                while (!connection.broken() && pending.available() > 0) {
                    pump();
                }
            } catch (IOException | WireFormatException e) {
                connection.fail(STATUS_IO);
            } finally {
                readLock.unlock();
            }
        }
    }

    /**
     * For a writer whose socket is full: reads replies meanwhile, if nobody else does. Its write
     * found the socket full in non-blocking mode, but a reader may have put the socket back in
     * blocking mode since ({@link #blockingAgain}): then it reads only bytes that wait, never
     * blocks in {@code read}, where nothing may come (its own request half-written, no other
     * reply due) until its deadline failed a healthy connection.
     */
    void pumpIfFree() throws IOException {
        if (readLock.tryLock()) {
            try {
                if (!connection.broken() && (socket == null || nonBlockingNow || pending.available() > 0)) {
                    pump();
                }
            } finally {
                readLock.unlock();
            }
        }
    }

    /** Waits until {@code c} is done, reading for everyone while it holds the reader role. */
    void await(RemoteCall c, long deadline) {
        JfrEvents.RemoteRequest jfr = new JfrEvents.RemoteRequest();
        jfr.begin();
        // An interrupt would make every park and select return at once: wait with it cleared
        // (the deadline still bounds the wait) and set it again for the caller.
        boolean interrupted = Thread.interrupted();
        PollBudget.startWaiting(); // with as many waiting threads as cores, nobody polls
        c.join(); // a thread waiting for another's call (a joined fill) is woken with its caller
        try {
            while (!c.done) {
                interrupted |= Thread.interrupted();
                if (connection.broken()) {
                    failBroken(c);
                    if (!c.done) {
                        // Whoever took it completes it: fail at once, a reader once it has its payload.
                        LockSupport.parkNanos(connection, 1_000_000);
                    }
                    continue;
                }
                if (readLock.tryLock()) {
                    try {
                        readUntil(c, deadline);
                    } catch (IOException | WireFormatException | java.nio.channels.ClosedSelectorException e) {
                        connection.fail(STATUS_IO);
                    } finally {
                        readLock.unlock();
                        handOverReading();
                    }
                } else {
                    // Another thread reads; it unparks us when our reply is in (or hands us its role).
                    LockSupport.parkNanos(connection, Math.max(1, Math.min(deadline - System.nanoTime(), 1_000_000)));
                }
                if (!c.done && System.nanoTime() - deadline > 0) {
                    connection.fail(STATUS_TIMEOUT);
                }
            }
        } finally {
            PollBudget.endWaiting();
        }
        if (c.detached != null) {
            MemorySegment.copy(MemorySegment.ofArray(c.detached), 0, c.dst, c.dstOffset, c.detached.length);
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (jfr.shouldCommit()) {
            jfr.op = JfrEvents.RemoteRequest.opName(c.op);
            jfr.segmentId = c.segmentId;
            jfr.offset = c.offset;
            jfr.bytes = c.bytes;
            jfr.outcome = c.status == 0 ? "OK" : c.status == STATUS_IO ? "IO" : c.status == STATUS_TIMEOUT ? "TIMEOUT"
                : String.valueOf(AccessStatus.fromWire(c.status));
            jfr.commit();
        }
    }

    /**
     * The connection failed and {@code c} is not done: completes it with the first failure's
     * status if it is still registered (taken from the calls, so that no reader fills it
     * meanwhile). Else {@link RemoteConnection#fail} took it, and is completing it, or a reader
     * took its reply: under the reader role, where no reader is handing it a reply, it is
     * completed with the failure too if it is still not done (the rest of its bulk payload will
     * never be read, or the reader refused its reply as malformed); fail, should it complete it
     * as well, gives it the same status.
     */
    private void failBroken(RemoteCall c) {
        if (c.id == 0 || calls.remove(c.id, c)) { // 0: never registered (its queueing failed)
            c.complete(connection.failure(), 0);
            return;
        }
        if (readLock.tryLock()) {
            try {
                if (bulkCall != null) { // nobody reads the rest into its memory any more
                    bulk = null;
                    bulkCall = null;
                }
                if (!c.done) {
                    c.complete(connection.failure(), 0);
                }
            } finally {
                readLock.unlock();
            }
        }
    }

    /**
     * After a reader's own reply: wakes the threads still waiting (callers and the threads that
     * joined their calls), so that one of them takes the role. All of them, not one: the one picked might still be sending (not parked yet) and the
     * others would then sleep until their park times out.
     */
    private void handOverReading() {
        for (RemoteCall other : calls.values()) {
            if (!other.done) {
                other.wake();
            }
        }
    }

    /** Reads replies until {@code c}'s has come: polls for the budget, then blocks in the selector. */
    private void readUntil(RemoteCall c, long deadline) throws IOException {
        if (connection.blocking()) {
            readUntilBlocking(c, deadline);
            return;
        }
        boolean first = true;
        boolean polledAtAll = false;
        long waitStart = System.nanoTime();
        while (!c.done) {
            long start = System.nanoTime();
            long limit = budget.budget();
            // Right after sending, a reply cannot be in yet: when not polling, block at once
            // instead of paying a read that finds nothing.
            if ((!(first && limit == 0) || tls != null && tls.hasBufferedInput()) && pump() > 0) {
                first = false;
                continue;
            }
            first = false;
            int n = 0;
            if (limit > 0 && PollBudget.startPolling()) {
                polledAtAll = true;
                try {
                    long previous = start;
                    while (!c.done && n == 0) {
                        long now = System.nanoTime();
                        if (now - start >= limit || !PollBudget.stillScheduled(previous, now)) {
                            break;
                        }
                        previous = PollBudget.pause(start, previous, now);
                        if (previous == PollBudget.STOP) {
                            break;
                        }
                        n = pump();
                    }
                    budget.polled(c.done || n > 0);
                } finally {
                    PollBudget.endPolling();
                }
            }
            if (c.done || n > 0) {
                continue;
            }
            if (tls != null && tls.hasBufferedInput() && pump() > 0) {
                continue; // bytes the selector cannot see
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            selector.select(Math.max(1, left / 1_000_000));
            selector.selectedKeys().clear();
        }
        if (!polledAtAll) {
            budget.blocked(System.nanoTime() - waitStart); // would a poll have caught it?
        }
    }

    /**
     * {@link #readUntil} in blocking mode: polls for the budget by non-blocking reads of the
     * socket ({@link #readsWhilePolling}; where a request is being written meanwhile, by the
     * kernel's count of waiting bytes and a read when there are some), then blocks in
     * {@code read}, a call the {@link BlockingWatchdog} ends at the deadline.
     */
    private void readUntilBlocking(RemoteCall c, long deadline) throws IOException {
        boolean polledAtAll = false;
        long waitStart = System.nanoTime();
        while (!c.done) {
            long limit = budget.budget();
            if (limit > 0 && PollBudget.startPolling()) {
                polledAtAll = true;
                boolean hit = false;
                try {
                    boolean reads = readsWhilePolling();
                    long start = System.nanoTime();
                    long previous = start;
                    while (!c.done) {
                        // Not polling by reads: ask how many bytes wait, so that the read does not block.
                        if ((reads || pending.available() > 0) && pump() > 0) {
                            if (reads) {
                                polledReads++;
                            }
                            hit = true;
                            break;
                        }
                        long now = System.nanoTime();
                        if (now - start >= limit || !PollBudget.stillScheduled(previous, now)) {
                            break;
                        }
                        previous = PollBudget.pause(start, previous, now);
                        if (previous == PollBudget.STOP) {
                            break;
                        }
                    }
                    budget.polled(hit || c.done);
                } finally {
                    PollBudget.endPolling();
                }
                if (hit || c.done) {
                    continue;
                }
            }
            if (System.nanoTime() - deadline > 0) {
                return; // await fails the connection
            }
            blockingAgain();
            readDeadline = deadline;
            readBlocked = true;
            try {
                pump(); // blocks until bytes come
            } finally {
                readBlocked = false;
            }
        }
        if (!polledAtAll) {
            budget.blocked(System.nanoTime() - waitStart); // would a poll have caught it?
        }
    }

    /**
     * One read from the socket, and every reply it completes dispatched to its caller.
     *
     * @return bytes read
     * @throws IOException on end of stream
     */
    private int pump() throws IOException {
        if (bulk != null || bulkDiscard > 0) {
            return readBulk();
        }
        int n = channel.read(in);
        if (n < 0) {
            throw new java.io.EOFException("home node closed the connection");
        }
        if (n > 0 || in.position() > 0) {
            dispatch();
        }
        return n;
    }

    private int readBulk() throws IOException {
        int n;
        if (bulk != null) {
            n = channel.read(bulk);
            if (n >= 0 && !bulk.hasRemaining()) {
                bulk = null;
                RemoteCall c = bulkCall;
                bulkCall = null;
                c.done = true;
                c.wake();
            }
        } else {
            in.clear().limit((int) Math.min(IN_CAPACITY, bulkDiscard));
            n = channel.read(in);
            in.clear();
            if (n > 0) {
                bulkDiscard -= n;
            }
        }
        if (n < 0) {
            throw new java.io.EOFException("home node closed the connection");
        }
        return n;
    }

    /** Dispatches the complete replies in {@link #in}; a large payload's rest is read straight into its destination. */
    private void dispatch() {
        in.flip();
        while (in.remaining() >= DataProtocol.REPLY_HEADER) {
            int p = in.position();
            int payload = DataProtocol.replyPayload(in.getInt(p));
            int avail = in.remaining() - DataProtocol.REPLY_HEADER;
            if (payload <= SMALL_REPLY && avail < payload) {
                break;
            }
            int status = in.get(p + 4) & 0xff;
            if (status == (DataProtocol.STATUS_MALFORMED & 0xff)) {
                throw new WireFormatException("the home node rejected a request as malformed");
            }
            RemoteCall c = calls.remove(in.getLong(p + 8));
            int here = Math.min(payload, avail);
            in.position(p + DataProtocol.REPLY_HEADER + here);
            if (c == null) { // its caller gave up (deadline): drop the payload
                bulkDiscard = payload - here;
                if (bulkDiscard > 0) {
                    break;
                }
                continue;
            }
            c.status = status;
            c.value = in.getLong(p + 16);
            if (payload > 0 && c.dst == null) {
                c.value = bits(p + DataProtocol.REPLY_HEADER, c.width);
            } else if (payload > 0) {
                if (c.upTo && payload <= c.width) {
                    c.received = payload;
                } else if (payload != c.width) {
                    throw new WireFormatException("home sent " + payload + " bytes for a " + c.width + "-byte read");
                }
                MemorySegment target = c.dst;
                long at = c.dstOffset;
                if (!c.dst.isAccessibleBy(Thread.currentThread()) || !RemoteConnection.hasByteBuffer(c.dst)) {
                    c.detached = new byte[payload];
                    target = MemorySegment.ofArray(c.detached);
                    at = 0;
                }
                MemorySegment.copy(inSegment, p + DataProtocol.REPLY_HEADER, target, at, here);
                if (here < payload) {
                    bulk = target.asSlice(at + here, payload - here).asByteBuffer();
                    bulkCall = c;
                    break;
                }
            }
            c.done = true;
            c.wake();
        }
        in.compact();
    }

    private long bits(int at, int width) {
        return switch (width) {
            case 1 -> inSegment.get(ValueLayout.JAVA_BYTE, at);
            case 2 -> inSegment.get(ValueLayout.JAVA_SHORT_UNALIGNED, at);
            case 4 -> inSegment.get(ValueLayout.JAVA_INT_UNALIGNED, at);
            default -> inSegment.get(ValueLayout.JAVA_LONG_UNALIGNED, at);
        };
    }
}
