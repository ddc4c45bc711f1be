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

    /**
     * The path of one frame of a message, for the order between the home path and the route
     * (docs/vmmc.md, "Order across the two paths"). A route acknowledges a frame once it has
     * stored it and handed its notification to the receiver's inbox, which delivers in the order
     * handed in; the home acknowledges once it has stored it and queued its notice for the
     * receiver, which reads it later. So a route frame waits for the unanswered home frames
     * (their words must have landed first), a home store for the route's stores (the same), and
     * a home notice for every route frame (their notices must be handed in first). A home notice
     * followed by a route frame is ordered by the data only, not by the notices: that is why an
     * import with a route sends every notice through the route ({@code Transfer#send}).
     */
    enum Path {
        /** A store alone through the home. */
        HOME_STORE,
        /** A store and its notification through the home (an import without a route). */
        HOME_NOTICE,
        /** A store, with or without its notification, through the route. */
        ROUTE,
        /** A notification alone through the route, after its message's store through the home was answered. */
        ROUTE_NOTICE;

        /** @return whether a frame on this path must wait for the unanswered frames on {@code earlier} */
        boolean waitsFor(Path earlier) {
            return switch (this) {
                case ROUTE, ROUTE_NOTICE -> earlier == HOME_STORE || earlier == HOME_NOTICE;
                case HOME_STORE -> earlier == ROUTE;
                case HOME_NOTICE -> earlier == ROUTE || earlier == ROUTE_NOTICE;
            };
        }
    }

    private record Entry(PendingPut put, Path path) {
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Entry> pending = new ArrayDeque<>();
    /** Unanswered frames per {@link Path} (guarded by {@link #lock}). */
    private final int[] onPath = new int[Path.values().length];

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
            while (!pending.isEmpty() && (pending.peekFirst().put().done() || pending.size() >= SIZE)) {
                settle(pending.pollFirst());
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Before a frame on {@code path}: if an unanswered frame of the process (any thread's) is on
     * a path this one must wait for ({@link Path#waitsFor}), waits for every unanswered frame
     * first (a refusal among them is thrown). The process's messages so keep their order across
     * a change of path, whichever of its threads sent them.
     *
     * @param path the path of the frame about to be sent
     * @throws VmmcException BAD_IBUF_STATE if an earlier message was refused
     */
    void onPath(Path path) {
        lock.lock();
        try {
            for (Path earlier : Path.values()) {
                if (onPath[earlier.ordinal()] > 0 && path.waitsFor(earlier)) {
                    drainOrThrow();
                    return;
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Adds a frame just sent on {@code path}. */
    void add(PendingPut p, Path path) {
        lock.lock();
        try {
            pending.addLast(new Entry(p, path));
            onPath[path.ordinal()]++;
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

    private void settle(Entry entry) { // under lock
        onPath[entry.path.ordinal()]--;
        try {
            entry.put.await();
        } catch (RuntimeException e) {
            throw Vmmc.fromCmi(e, "an earlier SendData");
        }
    }
}
