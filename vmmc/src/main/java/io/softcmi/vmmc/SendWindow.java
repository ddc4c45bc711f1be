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
 * <p>No thread waits for an answer while it holds the window's lock: a waiting thread leaves the
 * frame in the window (it still counts towards the window's size and its path's frames) and
 * takes it out only once it is answered; several threads may wait for the same frame, and the
 * one that takes it out reports its refusal. So a handler, which runs on the thread that reads
 * the answers of the process's routes (the inlet thread), never waits for a thread that waits
 * for an answer only the handler's thread would read: it waits for that answer itself, and reads
 * it.
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

    /** A frame sent and not yet taken out of the window; {@code number} counts the frames added. */
    private record Entry(PendingPut put, Path path, long number) {
    }

    /** Guards the window's state; never held while a thread waits for an answer. */
    private final ReentrantLock lock = new ReentrantLock();
    /** The frames not yet taken out, oldest first (guarded by {@link #lock}). */
    private final ArrayDeque<Entry> pending = new ArrayDeque<>();
    /** Frames per {@link Path} not yet taken out, answered or not (guarded by {@link #lock}). */
    private final int[] onPath = new int[Path.values().length];
    /** Frames added so far (guarded by {@link #lock}): the number of the newest. */
    private long added;

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
        while (true) {
            Entry oldest;
            lock.lock();
            try {
                oldest = pending.peekFirst();
                if (oldest == null || (!oldest.put().done() && pending.size() < SIZE)) {
                    return;
                }
            } finally {
                lock.unlock();
            }
            settle(oldest);
        }
    }

    /**
     * Before a frame on {@code path}: if a frame of the process (any thread's) not yet taken out
     * is on a path this one must wait for ({@link Path#waitsFor}), waits until every frame sent
     * before this call is answered and taken out (a refusal among those this thread takes out
     * is thrown; one another thread takes out is that thread's to report). The process's
     * messages so keep their order across a change of path, whichever of its threads sent them
     * and whichever waits for their answers.
     *
     * @param path the path of the frame about to be sent
     * @throws VmmcException BAD_IBUF_STATE if an earlier message was refused
     */
    void onPath(Path path) {
        long through;
        lock.lock();
        try {
            if (!waitsForAny(path)) {
                return;
            }
            through = added;
        } finally {
            lock.unlock();
        }
        throwIfRefused(settleThrough(through));
    }

    /** @return whether a frame on {@code path} must wait for a frame in the window (under lock) */
    private boolean waitsForAny(Path path) {
        for (Path earlier : Path.values()) {
            if (onPath[earlier.ordinal()] > 0 && path.waitsFor(earlier)) {
                return true;
            }
        }
        return false;
    }

    /** Adds a frame just sent on {@code path}. */
    void add(PendingPut p, Path path) {
        lock.lock();
        try {
            pending.addLast(new Entry(p, path, ++added));
            onPath[path.ordinal()]++;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until every message outstanding at the call is answered and taken out of the window
     * (by this thread or another).
     *
     * @return the first refusal among those this thread took out, or null
     */
    VmmcException drain() {
        long through;
        lock.lock();
        try {
            through = added;
        } finally {
            lock.unlock();
        }
        return settleThrough(through);
    }

    /** {@link #drain}, throwing its refusal. @throws VmmcException BAD_IBUF_STATE if an earlier message was refused */
    void drainOrThrow() {
        throwIfRefused(drain());
    }

    private static void throwIfRefused(VmmcException e) {
        if (e != null) {
            throw e;
        }
    }

    /**
     * Settles the oldest frame until every frame numbered up to {@code through} is taken out.
     *
     * @return the first refusal among the frames this thread took out, or null
     */
    private VmmcException settleThrough(long through) {
        VmmcException first = null;
        while (true) {
            Entry oldest;
            lock.lock();
            try {
                oldest = pending.peekFirst();
                if (oldest == null || oldest.number() > through) {
                    return first;
                }
            } finally {
                lock.unlock();
            }
            try {
                settle(oldest);
            } catch (VmmcException e) {
                first = first == null ? e : first;
            }
        }
    }

    /**
     * Waits, without the lock, for the answer of {@code oldest} (other threads may wait for it at
     * once: {@link PendingPut#await} gives each the same outcome), then takes it out of the
     * window if it is still the oldest. Only the thread that takes a frame out reports its
     * refusal, so each refusal is thrown once.
     *
     * @throws VmmcException BAD_IBUF_STATE if this thread took out a refused frame
     */
    private void settle(Entry oldest) {
        RuntimeException refusal = null;
        try {
            oldest.put().await();
        } catch (RuntimeException e) {
            refusal = e;
        }
        lock.lock();
        try {
            if (pending.peekFirst() != oldest) {
                return; // another thread took it out, and reports it
            }
            pending.pollFirst();
            onPath[oldest.path().ordinal()]--;
        } finally {
            lock.unlock();
        }
        if (refusal != null) {
            throw Vmmc.fromCmi(refusal, "an earlier SendData");
        }
    }
}
