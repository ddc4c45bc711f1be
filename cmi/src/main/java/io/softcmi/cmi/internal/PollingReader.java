package io.softcmi.cmi.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.SocketChannel;

/**
 * Blocking reads on a socket that poll first: the control path's waiting strategy (the same
 * {@link PollBudget} rules as the data path). A read that finds nothing switches the socket to
 * non-blocking mode and polls it for the budget, then switches back and blocks. In a burst of
 * requests (a process calling {@code ctlInfo} in a loop, a daemon answering it) the next bytes
 * arrive within a few microseconds and nobody pays the wake-up of a parked thread; an idle
 * socket costs one short probe and then blocks.
 *
 * <p>Used by one reading thread at a time (the daemon's session thread, the client's reader
 * thread); writers of the same socket may run meanwhile and simply see non-blocking mode for a
 * few microseconds (they loop until their buffer is written).
 */
public final class PollingReader implements ReadableByteChannel {
    /** Longest a control-path reader polls. */
    public static final long MAX_POLL_NANOS = 50_000;
    private final SocketChannel channel;
    private final PollBudget budget = new PollBudget(MAX_POLL_NANOS);

    /**
     * @param channel a socket in blocking mode
     */
    public PollingReader(SocketChannel channel) {
        this.channel = channel;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        long start = System.nanoTime();
        long limit = budget.budget();
        if (limit > 0 && PollBudget.startPolling()) {
            try {
                channel.configureBlocking(false);
                try {
                    long previous = start;
                    while (true) {
                        int n = channel.read(dst);
                        if (n != 0) {
                            budget.polled(true);
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
                    channel.configureBlocking(true);
                }
            } finally {
                PollBudget.endPolling();
            }
        }
        int n = channel.read(dst);
        if (limit == 0) {
            budget.blocked(System.nanoTime() - start); // would a poll have caught it?
        }
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
