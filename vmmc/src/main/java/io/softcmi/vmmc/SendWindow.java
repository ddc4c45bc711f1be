package io.softcmi.vmmc;

import io.softcmi.cmi.notify.PendingPut;
import java.util.ArrayDeque;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The process's pipelined {@code SendData} messages whose home has not answered yet: a
 * {@code SendData} (without notification) returns once its message is written to the network,
 * as the manual says, and does not wait for the home's reply before the next send. At most
 * {@code vmmc.sendWindow} (default {@value #DEFAULT_SIZE}; 0 sends every message synchronously)
 * are outstanding; a send beyond that waits for the oldest. The home serves a data connection's
 * requests in order, so messages keep their order; a refusal by the home (an unexported buffer's
 * deleted token, an unreachable home) is thrown by the next transfer call of the process: the
 * next {@code SendData} once the reply is in, or at the latest {@link #drain}, which
 * {@code SendDataNotify}, the asynchronous transfers and {@code GetData} call first (so a
 * notification is never sent after a message that failed). Thread-safe: the calling thread and
 * handlers may both send.
 */
final class SendWindow {
    /** Default of {@code vmmc.sendWindow}. */
    static final int DEFAULT_SIZE = 16;
    /** Largest number of outstanding messages ({@code vmmc.sendWindow}). */
    static final int SIZE = Math.max(0, Integer.getInteger("vmmc.sendWindow", DEFAULT_SIZE));

    /**
     * Unwritten notices of the receiver (at its home) above which the sender slows down
     * ({@code vmmc.sendBacklog}); the home refuses notifications far above it
     * (docs/notifications.md, back-pressure).
     */
    static final long BACKLOG = Math.max(1, Long.getLong("vmmc.sendBacklog", 512));
    /** One step of the slow-down. */
    private static final long BACKOFF_NANOS = 50_000;
    /** Longest slow-down before one send. */
    private static final long MAX_BACKOFF_NANOS = 20_000_000;

    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<PendingPut> pending = new ArrayDeque<>();
    /** The largest receiver backlog reported by the replies settled since the last slow-down. */
    private long backlog;

    /** @return whether SendData is pipelined at all */
    static boolean enabled() {
        return SIZE > 0;
    }

    /**
     * Before a pipelined send: reports the first failure among the answered messages, then waits
     * for the oldest until there is room for one more.
     *
     * @throws VmmcException BAD_IBUF_STATE if an earlier message was refused
     */
    void beforeSend() {
        lock.lock();
        try {
            while (!pending.isEmpty() && (pending.peekFirst().done() || pending.size() >= SIZE)) {
                settle(pending.pollFirst());
            }
            if (backlog > BACKLOG) {
                slowDown();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Flow control between sender and receiver: the home answers each notification with the
     * receiver's backlog of unwritten notices (the receiver copies every message from its
     * segment to its buffer). Above {@link #BACKLOG} the sender waits for every outstanding
     * reply, then parks in proportion to the excess (at most {@link #MAX_BACKOFF_NANOS}), so it
     * does not run so far ahead that the home refuses its notifications.
     */
    private void slowDown() {
        long excess = backlog / BACKLOG;
        backlog = 0;
        while (!pending.isEmpty()) {
            settle(pending.pollFirst());
        }
        java.util.concurrent.locks.LockSupport.parkNanos(Math.min(MAX_BACKOFF_NANOS, excess * BACKOFF_NANOS * SIZE));
    }

    /** Adds a message just sent. */
    void add(PendingPut p) {
        lock.lock();
        try {
            pending.addLast(p);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits for every outstanding message.
     *
     * @return the first refusal among them, or null
     */
    VmmcException drain() {
        VmmcException first = null;
        lock.lock();
        try {
            while (!pending.isEmpty()) {
                try {
                    settle(pending.pollFirst());
                } catch (VmmcException e) {
                    first = first == null ? e : first;
                }
            }
        } finally {
            lock.unlock();
        }
        return first;
    }

    /** {@link #drain}, throwing its refusal. @throws VmmcException BAD_IBUF_STATE if an earlier message was refused */
    void drainOrThrow() {
        VmmcException e = drain();
        if (e != null) {
            throw e;
        }
    }

    private void settle(PendingPut p) {
        try {
            p.await();
        } catch (RuntimeException e) {
            throw Vmmc.fromCmi(e, "an earlier SendData");
        }
        backlog = Math.max(backlog, p.creatorBacklog());
    }
}
