package io.softcmi.cmi.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.SocketChannel;

/**
 * Reads on a non-blocking socket that poll first: the control path's waiting strategy (the same
 * {@link PollBudget} rules as the data path), used by the daemon's control sessions. A read
 * that finds nothing polls the socket for the budget, then waits through the given
 * {@link ReadyWait} (the daemon's poller). In a burst of requests (a process calling
 * {@code ctlInfo} in a loop) the next bytes arrive within a few microseconds and nobody pays the
 * wake-up of a parked thread; an idle socket costs one short probe and then waits. The socket
 * stays non-blocking, so the session's writer never blocks on it. Used by one reading thread at
 * a time.
 *
 * <p>Reads are buffered: one system call takes whatever the socket holds (up to
 * {@link #BUFFER_BYTES}), and the reads that follow are served from the buffer, so a frame read
 * as a length and then a body costs one {@code read}, not two. A read asking for at least a
 * buffer's worth reads straight into the caller's buffer.
 *
 * <p><b>While traffic lasts</b> (data came within the last {@link PollBudget#TRAFFIC_NANOS}) it polls for
 * the full budget whatever its hit rate says, as the home's I/O loop does, unless the JVM's
 * pollers back off or threads wait for a core ({@link PollBudget#crowded()}: a poll that does not
 * pay would then take the core the peer needs to send the next message): a reader whose rate fell (a burst that began while it was parked, a
 * preemption) would otherwise park after every request, and the peer, whose next message
 * then waits for that wake-up, would see its own polls miss and block too, each end keeping the
 * other in the slow mode. {@link #lastReadWaited()} tells the peer which replies paid a wake-up.
 */
public final class PollingReader implements ReadableByteChannel {
    /** Longest a control-path reader polls. */
    public static final long MAX_POLL_NANOS = 50_000;
    /** Bytes one system call may read ahead of the caller. */
    public static final int BUFFER_BYTES = 8192;
    private final SocketChannel channel;
    private final PollBudget budget = new PollBudget(MAX_POLL_NANOS);
    private final ReadyWait readyWait;
    /** Bytes read ahead, between position and limit. */
    private final ByteBuffer ahead = ByteBuffer.allocateDirect(BUFFER_BYTES).limit(0);
    /** {@link System#nanoTime} of the last socket read that returned data. */
    private long lastData = System.nanoTime() - PollBudget.TRAFFIC_NANOS;
    /** Whether that read came after a blocking wait rather than from a poll. */
    private boolean lastReadWaited;
    /** Socket reads that polled (for tests). */
    private long polls;

    /** Waits until a non-blocking socket has something to read. */
    @FunctionalInterface
    public interface ReadyWait {
        /**
         * Returns when the socket is readable (or closed), parking meanwhile.
         *
         * @throws IOException if the socket or the waiting mechanism closed
         */
        void awaitReadable() throws IOException;
    }

    /**
     * @param channel a socket in non-blocking mode, which stays so
     * @param readyWait how to wait for it to become readable
     */
    public PollingReader(SocketChannel channel, ReadyWait readyWait) {
        this.channel = channel;
        this.readyWait = java.util.Objects.requireNonNull(readyWait, "readyWait");
        if (channel.isBlocking()) {
            throw new IllegalArgumentException("the socket must be in non-blocking mode");
        }
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        if (!dst.hasRemaining()) {
            return 0;
        }
        if (!ahead.hasRemaining()) {
            if (dst.remaining() >= BUFFER_BYTES) {
                return readSocket(dst);
            }
            ahead.clear();
            int n = readSocket(ahead);
            ahead.flip();
            if (n < 0) {
                return n;
            }
        }
        int n = Math.min(ahead.remaining(), dst.remaining());
        int limit = ahead.limit();
        dst.put(ahead.limit(ahead.position() + n));
        ahead.limit(limit);
        return n;
    }

    /** One read from the socket, polling first. @return bytes read, at least 1, or -1 at the end */
    private int readSocket(ByteBuffer dst) throws IOException {
        long start = System.nanoTime();
        long limit = budget.budgetWhileTraffic(start, lastData); // while traffic lasts (see the class comment)
        if (limit > 0 && PollBudget.startPolling()) {
            polls++;
            try {
                long previous = start;
                while (true) {
                    int n = channel.read(dst);
                    if (n != 0) {
                        budget.polled(true);
                        lastData = System.nanoTime();
                        lastReadWaited = false;
                        return n;
                    }
                    long now = System.nanoTime();
                    if (now - start >= limit || !PollBudget.stillScheduled(previous, now)) {
                        budget.polled(false);
                        break;
                    }
                    previous = now;
                    Thread.onSpinWait();
                }
            } finally {
                PollBudget.endPolling();
            }
        }
        int n = channel.read(dst);
        boolean waited = n == 0;
        if (waited) {
            n = readWaiting(dst);
        }
        long now = System.nanoTime();
        if (limit == 0) {
            budget.blocked(now - start); // would a poll have caught it?
        }
        lastData = now;
        lastReadWaited = waited;
        return n;
    }

    /**
     * @return whether the last read from the socket that returned data came after a blocking
     *     wait (the thread parked) rather than from a poll: the node tells the process so in its
     *     reply ({@link io.softcmi.wire.Frame#FLAG_NODE_WOKE})
     */
    public boolean lastReadWaited() {
        return lastReadWaited;
    }

    /** @return socket reads that polled before blocking (for tests) */
    long polls() {
        return polls;
    }

    private int readWaiting(ByteBuffer dst) throws IOException {
        int n;
        do {
            readyWait.awaitReadable();
        } while ((n = channel.read(dst)) == 0);
        return n;
    }

    @Override
    public boolean isOpen() {
        return channel.isOpen();
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
