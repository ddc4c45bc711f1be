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
 *
 * <p>Flow control towards a receiver slower at copying than the sender is at sending is the
 * home's, not this window's: while the receiver's context is far behind reading its notices the
 * home holds the sender's data connection (docs/notifications.md, back-pressure), its replies
 * stop, and {@link #beforeSend} waits for the oldest like for any slow reply. A message is never
 * refused for the receiver's backlog.
 */
final class SendWindow {
    /** Default of {@code vmmc.sendWindow}. */
    static final int DEFAULT_SIZE = 16;
    /** Largest number of outstanding messages ({@code vmmc.sendWindow}). */
    static final int SIZE = Math.max(0, Integer.getInteger("vmmc.sendWindow", DEFAULT_SIZE));

    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<PendingPut> pending = new ArrayDeque<>();
    /** Per sending thread: whether its last message went straight to its exporter (a route) rather than through the home. */
    private final ThreadLocal<boolean[]> lastDirect = ThreadLocal.withInitial(() -> new boolean[1]);

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
        } finally {
            lock.unlock();
        }
    }

    /**
     * Before a message on the direct path ({@code direct}) or the home's: if the calling thread's
     * previous message took the other path, waits for every outstanding message first (a
     * refusal among them is thrown), so the thread's messages stay in order across the change
     * (the order VMMC keeps is per sending thread).
     *
     * @param direct whether this message goes straight to its exporter
     * @throws VmmcException BAD_IBUF_STATE if an earlier message was refused
     */
    void onPath(boolean direct) {
        boolean[] last = lastDirect.get();
        if (direct != last[0]) {
            drainOrThrow();
            last[0] = direct;
        }
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
    }
}
