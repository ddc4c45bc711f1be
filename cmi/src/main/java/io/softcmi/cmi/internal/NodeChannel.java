package io.softcmi.cmi.internal;

import io.softcmi.cmi.CmiError;
import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.Frame;
import io.softcmi.wire.FrameIO;
import io.softcmi.wire.FrameReader;
import io.softcmi.wire.MessageType;
import io.softcmi.wire.WireFormatException;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * A process's control connection to its node daemon over the node's Unix-domain socket.
 *
 * <p>Callers on any thread send a request and wait for the reply with the same correlation id.
 * Reading is leader/follower: a caller that finds the connection free to read reads itself,
 * polling the socket for a {@link PollBudget} (a reply usually comes within microseconds), and
 * so pays no thread wake-up; frames that arrive while no caller reads (notices, or a reply
 * whose caller stopped polling) are read by a background reader thread blocked in a selector.
 * Whoever reads completes replies; notices (events, notifications, shutdown) are queued and
 * handed to the listener by the reader thread alone, in the order the node sent them. So the
 * listener always runs on one thread, and may run short work there directly (the notification
 * extension's inline handlers). A call made by the listener itself (on the reader thread) reads
 * its own reply and leaves the notices read meanwhile queued, so listeners never nest; a caller
 * whose reply the reader is slow to read because a listener is running reads it itself. The
 * connection's lifetime is the context's: when it closes, for any reason, the node applies the
 * lifetime rules of a process that exited.
 */
public final class NodeChannel implements AutoCloseable {
    /** Name of the control socket in a node directory. */
    public static final String SOCKET_NAME = "cmid.sock";
    private static final long REPLY_TIMEOUT_SECONDS = 60;
    /** Longest a caller polls for its reply. */
    private static final long MAX_POLL_NANOS = 50_000;
    /** While the listener runs, a caller waiting for its reply tries to read it itself this often. */
    private static final long LISTENER_BUSY_NANOS = 1_000_000;
    /** Otherwise it re-checks whether the listener became busy this often. */
    private static final long IDLE_RECHECK_NANOS = 20_000_000;

    private final SocketChannel channel;
    private final ReentrantLock writeLock = new ReentrantLock();
    private final AtomicLong nextCorrelationId = new AtomicLong();
    private final Map<Long, PendingReply> pending = new ConcurrentHashMap<>();
    private final Thread reader;
    private final Selector selector;
    private final ReentrantLock readLock = new ReentrantLock();
    /** Guarded by {@link #readLock}. */
    private final FrameReader frames = new FrameReader();
    /** Guarded by {@link #readLock}. */
    private final PollBudget budget = new PollBudget(MAX_POLL_NANOS);
    /** The callers' replies, counted after each call and moved into {@link #budget} under the read lock. */
    private final ControlReplyCounts counts = new ControlReplyCounts();
    /** Notices read and not yet handed to the listener; the reader thread alone delivers them. */
    private final NoticeInbox notices = new NoticeInbox();
    /** When the reader polls for an answer to a notification this process sent. */
    private final NoticeSpin spin = new NoticeSpin();
    /** Keeps the reader off the socket while callers read their own replies. */
    private final ReaderStandby standby = new ReaderStandby();
    /** Times the reader thread returned from its selector (reader only; read by tests). */
    private volatile long readerWakeups;
    /** Set while the reader thread holds {@link #readLock} for a brief read of what the socket holds. */
    private volatile boolean readerReading;
    /** Replies their callers read themselves (under {@link #readLock}; read by tests). */
    private volatile long ownReads;
    private volatile Runnable closeListener = () -> { };
    private volatile String closedReason;
    /** Why a caller found the connection broken ({@link #endBroken}), or null: the reader's reason when it ends. */
    private volatile String brokenReason;

    private NodeChannel(SocketChannel channel) throws IOException {
        this.channel = channel;
        channel.configureBlocking(false);
        this.selector = Selector.open();
        channel.register(selector, SelectionKey.OP_READ);
        this.reader = Thread.ofPlatform().daemon().name("softcmi-node-reader").unstarted(this::readLoop);
        standby.reader(reader);
    }

    /**
     * Connects to the node daemon serving {@code nodeDirectory}.
     *
     * @param nodeDirectory the daemon's {@code --dir}
     * @return the connected channel, its reader running
     * @throws io.softcmi.cmi.CmiException INIT if no daemon answers there
     */
    public static NodeChannel connect(Path nodeDirectory) {
        Path socket = nodeDirectory.resolve(SOCKET_NAME);
        try {
            SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
            try {
                ch.connect(UnixDomainSocketAddress.of(socket));
            } catch (IOException e) {
                ch.close();
                throw e;
            }
            NodeChannel nc = new NodeChannel(ch);
            nc.reader.start();
            return nc;
        } catch (IOException e) {
            throw Errors.fail(CmiError.INIT, "no CMI node daemon at " + socket + ": " + e.getMessage());
        }
    }

    /**
     * Sets who hears notices; the node sends none before the session's Hello is answered.
     *
     * @param onNotice receives events and shutdown notices, on the reader thread (always the same thread)
     * @param onClose runs once when the connection ends
     */
    public void listen(Consumer<ControlMessage> onNotice, Runnable onClose) {
        notices.listen(onNotice);
        this.closeListener = onClose;
    }

    /**
     * Sends a request and waits for its reply. An {@link ControlMessage.ErrorReply} becomes a
     * {@code CmiException} with the node's error code.
     *
     * @param request the request
     * @param replyType the reply class expected
     * @param <T> the reply type
     * @return the reply
     */
    public <T extends ControlMessage> T call(ControlMessage request, Class<T> replyType) {
        return call(request, replyType, TimeUnit.SECONDS.toNanos(REPLY_TIMEOUT_SECONDS));
    }

    /**
     * {@link #call(ControlMessage, Class)} that waits for the reply at most {@code timeoutNanos}
     * instead of {@link #REPLY_TIMEOUT_SECONDS}: for a call made on behalf of a caller with a
     * deadline of its own (a data connection's ticket).
     *
     * @param request the request
     * @param replyType the reply class expected
     * @param timeoutNanos how long to wait for the reply
     * @param <T> the reply type
     * @return the reply
     */
    public <T extends ControlMessage> T call(ControlMessage request, Class<T> replyType, long timeoutNanos) {
        JfrEvents.ControlCall jfr = new JfrEvents.ControlCall();
        jfr.begin();
        return ControlReplies.expect(request, send(request, timeoutNanos), replyType, jfr);
    }

    /**
     * Sends a one-way message (correlation id 0): the node answers nothing, so the caller only
     * waits for the socket write. Used by the notification extension.
     *
     * @param message the message
     * @throws io.softcmi.cmi.CmiException INIT if the connection is closed or fails
     */
    public void sendOneWay(ControlMessage message) {
        if (closedReason != null) {
            throw Errors.fail(CmiError.INIT, "connection to the node is closed: " + closedReason);
        }
        Frame frame = MessageType.toFrame(message, 0);
        writeLock.lock();
        try {
            write(frame);
        } catch (IOException e) {
            throw Errors.fail(CmiError.INIT, "connection to the node failed: " + e.getMessage());
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * Sends a one-way message (correlation id 0) only if no other thread is writing to the node
     * now, so the caller never waits behind another caller's frame. Used for figures that are
     * sent again later if this one does not go ({@link ControlMessage.CacheReport}).
     *
     * @param message the message
     * @return whether it was written; false if the connection is busy, closed or failed
     */
    public boolean offerOneWay(ControlMessage message) {
        if (closedReason != null || !writeLock.tryLock()) {
            return false;
        }
        try {
            write(MessageType.toFrame(message, 0));
            return true;
        } catch (IOException e) {
            return false; // the reader sees the connection end and reports it
        } finally {
            writeLock.unlock();
        }
    }

    private ControlMessage send(ControlMessage request, long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        if (closedReason != null) {
            throw Errors.fail(CmiError.INIT, "connection to the node is closed: " + closedReason);
        }
        long id = nextCorrelationId.incrementAndGet();
        PendingReply reply = new PendingReply();
        pending.put(id, reply);
        try {
            Frame frame = MessageType.toFrame(request, id);
            writeLock.lock();
            try {
                write(frame);
            } finally {
                writeLock.unlock();
            }
            boolean missed = false;
            if (Thread.currentThread() == reader) {
                readOwnReply(reply, deadline); // called by the listener: nobody else would read it
            } else {
                missed = pollForReply(reply);
            }
            ControlMessage answer = awaitReply(reply, deadline);
            counts.count(reply.nodeFlags, reply.caught, missed);
            return answer;
        } catch (IOException e) {
            endBroken(e.getMessage());
            throw Errors.fail(CmiError.INIT, "connection to the node failed: " + e.getMessage());
        } catch (ExecutionException e) {
            throw Errors.fail(CmiError.INIT, "connection to the node closed: " + e.getCause().getMessage());
        } catch (TimeoutException e) {
            throw Errors.fail(CmiError.INIT, "node did not answer " + request.type() + " in "
                + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw Errors.fail(CmiError.INIT, "interrupted waiting for the node");
        } finally {
            pending.remove(id);
        }
    }

    /**
     * Waits for a reply; while the reader thread is busy running the listener, reads for itself
     * now and then instead of waiting for it.
     */
    private ControlMessage awaitReply(CompletableFuture<ControlMessage> reply, long deadline)
            throws IOException, InterruptedException, ExecutionException, TimeoutException {
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new TimeoutException();
            }
            try {
                return reply.get(Math.min(left, notices.delivering() ? LISTENER_BUSY_NANOS : IDLE_RECHECK_NANOS), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                if (notices.delivering() && readLock.tryLock()) {
                    try {
                        readAvailable(); // releases the read lock
                    } catch (WireFormatException w) {
                        throw new IOException(w.getMessage(), w);
                    } finally {
                        selector.wakeup(); // notices we queued: the reader may just have finished delivering
                    }
                }
            }
        }
    }

    /** The listener (on the reader thread) made a call: read until its reply, queueing notices. */
    private void readOwnReply(CompletableFuture<ControlMessage> reply, long deadline) throws IOException {
        readLock.lock();
        try {
            while (!reply.isDone() && System.nanoTime() - deadline < 0) {
                if (frames.fill(channel) > 0) {
                    dispatchAvailable();
                    continue;
                }
                selector.select(10);
                selector.selectedKeys().clear();
            }
        } catch (WireFormatException e) {
            throw new IOException(e.getMessage(), e);
        } finally {
            readLock.unlock();
        }
    }

    /**
     * Reads frames itself while its reply is likely to come soon (the caller is the leader), so
     * the reply costs no wake-up of the reader thread. The reader thread is woken only if it is
     * needed: this caller's reply did not come while it read, other callers wait for theirs, or
     * it queued notices that only the reader delivers ({@link ReaderStandby}).
     *
     * @return whether it polled and the reply did not come meanwhile (a miss, {@link ControlReplyCounts})
     */
    private boolean pollForReply(PendingReply reply) throws IOException {
        if (!readLock.tryLock()) {
            if (!readerReading) {
                // Another caller reads (it wakes the reader if it leaves before our reply), or the
                // reader polls for notices: either way the reader must not stand by on our reply.
                standby.want();
                return false;
            }
            readLock.lock(); // the reader thread takes what the socket holds now, briefly; then we poll
        }
        boolean polled = false;
        try {
            if (reply.isDone()) {
                return false;
            }
            counts.moveInto(budget);
            long limit = budget.budget();
            if (limit == 0 || !PollBudget.startPolling()) {
                return false;
            }
            try {
                long start = System.nanoTime();
                long previous = start;
                while (!reply.isDone()) {
                    if (frames.fill(channel) > 0) {
                        dispatchAvailable();
                        continue;
                    }
                    long now = System.nanoTime();
                    if (now - start >= limit || !PollBudget.stillScheduled(previous, now)) {
                        break;
                    }
                    previous = now;
                    Thread.onSpinWait();
                }
                polled = true;
                if (reply.isDone()) {
                    reply.caught = true;
                    budget.polled(true);
                }
            } finally {
                PollBudget.endPolling();
            }
            return !reply.isDone();
        } catch (WireFormatException e) {
            throw new IOException(e.getMessage(), e);
        } finally {
            if (polled) {
                standby.callerRead();
                if (reply.isDone()) {
                    ownReads++;
                }
            }
            readLock.unlock();
            // pending holds this call until send() returns: more than one means others wait.
            if (!notices.isEmpty()) {
                wakeReader();
            } else if (!reply.isDone() || pending.size() > 1) {
                standby.want(); // replies still to come: the socket wakes a reader in its selector
            }
        }
    }

    /**
     * A caller's read or write failed, or it read a malformed frame: the stream is lost. Closes
     * the connection and gets the reader thread out of its stand-by or selector, so that it ends
     * the connection as at the end of the stream and every call in flight fails now, not when
     * its reply times out ({@link #REPLY_TIMEOUT_SECONDS}).
     */
    private void endBroken(String reason) {
        if (brokenReason == null) {
            brokenReason = reason == null ? "the connection to the node failed" : reason;
        }
        if (closedReason == null) {
            closedReason = brokenReason; // ended from now on; the reader thread fails the calls in flight
        }
        closeQuietly();
        standby.want();
    }

    /** Gets the reader thread to look for work: out of its stand-by, or out of its selector. */
    private void wakeReader() {
        standby.want();
        selector.wakeup();
    }

    /** Writes a whole frame on the non-blocking socket; callers hold {@link #writeLock}. */
    private void write(Frame frame) throws IOException {
        ByteBuffer buf = FrameIO.encode(frame);
        while (buf.hasRemaining()) {
            if (channel.write(buf) == 0) {
                LockSupport.parkNanos(10_000); // the node is reading a large frame
            }
        }
    }

    /** Completes the replies among the frames read so far and queues the notices. Under {@link #readLock}. */
    private void dispatchAvailable() {
        Frame frame;
        while ((frame = frames.next()) != null) {
            ControlMessage message = MessageType.decode(frame);
            if (frame.correlationId() == 0) {
                notices.add(message); // the reader thread hands it over (NoticeInbox)
            } else {
                PendingReply f = pending.get(frame.correlationId());
                if (f != null) {
                    f.nodeFlags = frame.flags();
                    f.complete(message);
                }
            }
        }
    }

    /** The background reader: reads what arrives while no caller polls. */
    private void readLoop() {
        LatencySlice.applyToCurrentThread();
        String reason = "node closed the connection";
        try {
            while (channel.isOpen()) {
                readTurn();
            }
        } catch (IOException | WireFormatException | ClosedSelectorException e) {
            reason = e.getMessage() == null ? "node closed the connection" : e.getMessage();
            // Notices read in the same turn as the end of the stream (a node's NodeShutdown,
            // written just before it closes) are queued but not yet delivered.
            try {
                notices.deliver();
            } catch (RuntimeException listenerFailed) {
                // A listener's call on the ending connection: the end is what matters now.
            }
        } finally {
            String broken = brokenReason;
            closedReason = broken != null ? broken : reason;
            IOException cause = new IOException(closedReason);
            pending.values().forEach(f -> f.completeExceptionally(cause));
            closeQuietly();
            closeListener.run();
        }
    }

    /**
     * One turn of the background reader: polls for notices or parks in the selector, reads what
     * came, and delivers the notices. A method of its own rather than the body of
     * {@link #readLoop}'s loop, so that the JIT compiles it after a few thousand turns: a loop
     * body is compiled with its method only by on-stack replacement, after tens of thousands of
     * back-edges, and this loop turns once per burst of notices (docs/architecture.md §7.5c).
     */
    private void readTurn() throws IOException {
        if (notices.isEmpty() && !pollForNotices()) {
            selector.select(); // a caller that queued notices, or a sender expecting an answer, wakes it
            selector.selectedKeys().clear();
            readerWakeups++;
            readerReading = true;
            try {
                if (readLock.tryLock()) { // else a caller reads
                    readAvailable();
                }
            } finally {
                readerReading = false;
            }
            if (notices.isEmpty()) { // while calls go on, their callers read: stand by
                standby.standBy(channel::isOpen, readLock::isLocked);
            }
            if (!notices.isEmpty()) {
                spin.arrived(false);
            }
        }
        notices.deliver();
    }

    /** Reads and dispatches every frame the socket has now; the caller holds the read lock, released here. */
    private void readAvailable() throws IOException {
        try {
            while (frames.fill(channel) > 0) {
                dispatchAvailable();
            }
        } finally {
            readLock.unlock();
        }
    }

    /**
     * Polls the socket for notices while the answer window of a notification this process sent
     * is open ({@link NoticeSpin}), or while notices have been arriving at short intervals
     * ({@link ArrivalWindow}), instead of parking in the selector.
     *
     * @return true if notices arrived meanwhile; false to park
     */
    private boolean pollForNotices() throws IOException {
        long answer = spin.pollUntil();
        long stream = notices.streamPollUntil();
        long until = answer == 0 ? stream : stream == 0 || answer - stream > 0 ? answer : stream;
        if (until == 0 || !PollBudget.startPolling()) {
            return false;
        }
        try {
            long previous = System.nanoTime();
            while (channel.isOpen()) {
                if (readLock.tryLock()) {
                    readAvailable();
                }
                if (!notices.isEmpty()) {
                    if (answer != 0) {
                        spin.polled(true);
                    }
                    spin.arrived(true);
                    return true;
                }
                long now = System.nanoTime();
                if (now - until >= 0 || !PollBudget.stillScheduled(previous, now)) {
                    break;
                }
                previous = now;
                Thread.onSpinWait();
            }
            if (answer != 0) {
                spin.polled(false);
            }
            return false;
        } finally {
            PollBudget.endPolling();
        }
    }

    /**
     * A notification was sent: its answer may come soon, so the reader polls for a while
     * ({@link NoticeSpin}) rather than parks, if polling has been paying.
     */
    public void expectNotice() {
        if (spin.expect()) {
            wakeReader();
        }
    }

    /** @return whether the connection has ended */
    public boolean isClosed() {
        return closedReason != null;
    }

    /** Closes the connection; the node treats this as the context ending. */
    @Override
    public void close() {
        closeQuietly();
        standby.want(); // the reader may stand by: it finds the connection closed
    }

    /** @return times the reader thread returned from its selector (for tests) */
    long readerWakeups() {
        return readerWakeups;
    }

    /** @return replies their callers read themselves (for tests) */
    long ownReads() {
        return ownReads;
    }

    /** @return whether the callers' polls have been paying, by their hit rate alone (for tests) */
    boolean callerPollsPay() {
        readLock.lock();
        try {
            counts.moveInto(budget);
            return budget.hitRateHigh();
        } finally {
            readLock.unlock();
        }
    }

    /** @return whether the reader thread stands by now (for tests) */
    boolean readerStandingBy() {
        return standby.standing();
    }

    private void closeQuietly() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // Closing a Unix socket whose peer is gone cannot fail in a way the caller can act on.
        }
        try {
            selector.close();
        } catch (IOException ignored) {
            // Closing anyway.
        }
    }
}
