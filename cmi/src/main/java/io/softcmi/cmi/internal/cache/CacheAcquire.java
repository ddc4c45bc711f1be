package io.softcmi.cmi.internal.cache;

import io.softcmi.cmi.internal.cache.SegmentCache.AcquireFlight;
import io.softcmi.cmi.internal.cache.SegmentCache.Line;
import io.softcmi.wire.DataProtocol;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The acquires of one {@link SegmentCache} ({@code docs/cache.md}, "Acquire points"): an
 * {@code ACQUIRE} asks the home which bytes others wrote since the cache's epoch, and its reply
 * drops those lines.
 *
 * <p><b>Generations.</b> Each acquire started gets the next generation number. The
 * {@code ACQUIRE} is sent under the cache's lock, as fills are, so a fill stamped with generation
 * {@code g} or later was sent behind acquire {@code g} on the same connection and the home served
 * it after that acquire: its bytes are at least as new as the acquire's answer. So acquire
 * {@code g} marks stale only the fills in flight of an older generation, and drops only the
 * lines filled before it.
 *
 * <p><b>Deferred acquires</b> ({@code rmb}, {@link #defer}): the {@code ACQUIRE} is queued on
 * the route ({@link LineTransport#acquireLater}), not written, and left pending (or written at
 * once, see "Guess" below);
 * {@link SegmentCache#acquirePending} is set until its reply has been applied. Every access to
 * the cache settles it first (a load that hits, through the table or a {@link LineHint}, a
 * store, a bulk copy, a token change, a detach, another acquire): awaiting the reply writes the
 * queued {@code ACQUIRE} alone if nothing carried it yet. A load that misses sends its
 * {@code FILL} before it waits, and that write carries the queued {@code ACQUIRE} in front of
 * it: {@code rmb} plus a miss cost one write and one round trip. The queued {@code ACQUIRE}
 * takes its generation when it is queued, under the cache's lock, and every request started on
 * the route after it is written behind it, so the generation rule holds as for a sent one.
 *
 * <p><b>Guess.</b> A queued {@code ACQUIRE} saves a write when a miss settles it, but an access
 * that hits then waits a whole round trip, where one written at {@code rmb} would have made its
 * round trip during the compute between the two. So each cache queues only while its last
 * deferred acquire was settled by a load that missed (and at first); once one was settled by
 * anything else, the next {@code rmb} writes its {@code ACQUIRE} at once, and a miss that
 * settles that one makes the next queue again. A wrong guess costs what one of the two ways
 * costs, never more.
 */
final class CacheAcquire {
    private final SegmentCache c;
    /** Held while a deferred acquire is settled or started (taken before the cache's lock, never under it). */
    private final ReentrantLock settleLock = new ReentrantLock();
    /** The acquire left pending by {@link #defer}, or null. Guarded by {@link #settleLock}. */
    private AcquireFlight deferred;
    /** Whether the next deferred acquire is queued rather than written ({@link #defer}): its last one was settled by a miss. Guarded by {@link #settleLock}. */
    private boolean queueNext = true;
    /** Acquires started so far. Guarded by the cache's lock. */
    private long generation;
    /**
     * Cached lines that the last acquire's reply (of those settled without an error) named
     * written by others: those a bulk read refetches early ({@link #settleBeforeRange}). A line
     * that one reply does not name leaves the set, so data that others stopped writing stays
     * cached after one acquire. Only lines cached when the reply came are kept, so the work per
     * reply is bounded by the cache, not by the ranges named. Guarded by the cache's lock.
     */
    private final BitSet namedBefore = new BitSet();
    /** The indices set in {@link #namedBefore}, to clear them at the next reply. Guarded by the cache's lock. */
    private long[] namedList = new long[16];
    private int namedCount;

    CacheAcquire(SegmentCache cache) {
        this.c = cache;
    }

    /** Starts an acquire, after settling a deferred one. @return the flight, or null if nothing is cached */
    AcquireFlight start() {
        return start(false);
    }

    /**
     * Starts an acquire, after settling a deferred one.
     *
     * @param later queue the {@code ACQUIRE} ({@link LineTransport#acquireLater}) instead of sending it
     * @return the flight, or null if nothing is cached
     */
    private AcquireFlight start(boolean later) {
        settle();
        c.lock.lock();
        try {
            long g = ++generation;
            if (c.resident == 0) {
                // No baseline to ask from: misses in flight may have been answered before this
                // acquire's point, so they are sent again.
                c.fills().stale(-1, -1, g);
                return null;
            }
            byte[] ranges = new byte[DataProtocol.MAX_ACQUIRE_RANGES * 16];
            // Sent (or queued) under the lock: every fill stamped g or later goes out behind it.
            long since = Math.max(0, c.epoch);
            c.fills().acquiring(since); // a fill in flight answered before since would miss writes
            return new AcquireFlight(later ? c.transport.acquireLater(since, ranges) : c.transport.acquire(since, ranges),
                ranges, g);
        } finally {
            c.lock.unlock();
        }
    }

    /**
     * {@code rmb}: queues an acquire (or writes it, if the last one was not settled by a miss)
     * and leaves its sending and its reply to the next access ({@link #settle}, {@link #settleBefore}).
     */
    void defer() {
        settleLock.lock();
        try {
            settle(); // first: how it is settled decides queueNext
            AcquireFlight f = start(queueNext);
            if (f != null) {
                deferred = f;
                c.acquirePending = true;
                c.endHintEpoch(); // after the flag: a hint aimed from here on sees it pending
            }
        } finally {
            settleLock.unlock();
        }
    }

    /** @return the acquires started so far: a fill or line stamped with it is newer than each of them. Holds the cache's lock. */
    long generation() {
        return generation;
    }

    /** Waits for a deferred acquire's reply, if any, and applies it. Never called holding the cache's lock. */
    void settle() {
        settle(false);
    }

    /** @param byMiss whether a load that missed settles it (its fill sent first): the next deferred acquire is queued */
    private void settle(boolean byMiss) {
        if (!c.acquirePending) {
            return;
        }
        settleLock.lock();
        try {
            AcquireFlight f = deferred;
            if (f != null) {
                finish(f);
                deferred = null;
                c.acquirePending = false;
                queueNext = byMiss;
            }
        } finally {
            settleLock.unlock();
        }
    }

    /**
     * {@link #settle} for a load of line {@code idx}: if the line is absent, its fill is sent
     * first, in the same write as the queued {@code ACQUIRE} and behind it, and the two share
     * one round trip.
     */
    void settleBefore(long idx) {
        boolean miss = SegmentCache.SLOT.getAcquire(c.lines, (int) idx) == null;
        if (miss) {
            c.fills().startAhead(idx);
        }
        settle(miss);
    }

    /**
     * {@link #settle} for a bulk read of lines {@code [first, last]} (such as a halo row read
     * right after a barrier's {@code rmb}): the range's clean lines cached before the pending
     * acquire that the last acquire's reply named written by others are dropped at once, as if
     * this reply named them too, so the read's fills go out behind the {@code ACQUIRE} (in the
     * same write while it is queued) and the two share one round trip where settling first and
     * then fetching took two. Lines the last acquire did not name (private or read-only data, or
     * data others stopped writing) stay, so they are not fetched again; if this reply names one
     * of them after all, the read fetches it after settling, as before. Dirty lines stay (their
     * stores are this process's and the reply decides about them), as do lines filled after the
     * acquire started. Ranges larger than the cache are settled first, as every other access does.
     */
    void settleBeforeRange(long first, long last) {
        if (!c.acquirePending) {
            return;
        }
        if (last - first + 1 > c.capacityLines) {
            settle();
            return;
        }
        long g;
        settleLock.lock();
        try {
            AcquireFlight f = deferred;
            if (f == null) {
                return;
            }
            g = f.generation();
        } finally {
            settleLock.unlock();
        }
        c.lock.lock();
        try {
            List<Long> victims = new ArrayList<>();
            for (long idx = first; idx <= last; idx++) {
                Line l = c.lines[(int) idx];
                if (l != null && !l.dirty() && l.generation < g && namedBefore.get((int) idx)) {
                    victims.add(idx);
                }
            }
            if (!victims.isEmpty()) {
                c.stats.invalidations.add(victims.size());
                c.drop(victims);
            }
        } finally {
            c.lock.unlock();
        }
        c.fills().prefetch(first, last);
        settle(true);
    }

    /** Waits for an acquire and drops the lines others wrote; on failure drops every line. */
    void finish(AcquireFlight f) {
        if (f == null) {
            return;
        }
        int status = f.pending().await();
        c.stats.acquires.increment();
        c.lock.lock();
        try {
            List<Long> victims = new ArrayList<>();
            if (status != 0) {
                for (long idx : c.order) {
                    if (older(c.lines[(int) idx], f)) {
                        victims.add(idx);
                    }
                }
                c.fills().stale(-1, -1, f.generation());
            } else {
                forgetNamed();
                ByteBuffer bb = ByteBuffer.wrap(f.ranges(), 0, f.pending().received()).order(ByteOrder.LITTLE_ENDIAN);
                while (bb.remaining() >= 16) {
                    long s = bb.getLong();
                    long e = Math.min(bb.getLong(), c.size);
                    if (e <= s) {
                        continue;
                    }
                    long first = s >>> c.shift;
                    long last = (e - 1) >>> c.shift;
                    c.fills().stale(first, last, f.generation());
                    if (last - first + 1 > 2L * c.resident) {
                        for (long idx : c.order) {
                            if (idx >= first && idx <= last) {
                                named(idx, f, victims);
                            }
                        }
                    } else {
                        for (long idx = first; idx <= last; idx++) {
                            named(idx, f, victims);
                        }
                    }
                }
                c.epoch = Math.max(c.epoch, f.pending().value());
            }
            if (!victims.isEmpty()) {
                c.stats.invalidations.add(victims.size());
                c.drop(victims);
            }
        } finally {
            c.lock.unlock();
        }
    }

    /**
     * Line {@code idx} is in a range that acquire {@code f}'s reply named: if it is cached, it is
     * remembered in {@link #namedBefore}, and if it was filled before the acquire was sent, it is
     * dropped. Holds the cache's lock.
     */
    private void named(long idx, AcquireFlight f, List<Long> victims) {
        Line l = c.lines[(int) idx];
        if (l == null) {
            return;
        }
        if (!namedBefore.get((int) idx)) {
            namedBefore.set((int) idx);
            if (namedCount == namedList.length) {
                namedList = Arrays.copyOf(namedList, namedCount * 2);
            }
            namedList[namedCount++] = idx;
        }
        if (older(l, f)) {
            victims.add(idx);
        }
    }

    /** Empties {@link #namedBefore} before a reply's lines go in. Holds the cache's lock. */
    private void forgetNamed() {
        for (int i = 0; i < namedCount; i++) {
            namedBefore.clear((int) namedList[i]);
        }
        namedCount = 0;
    }

    /** @return whether {@code l} is cached and was filled before acquire {@code f} was sent */
    private static boolean older(Line l, AcquireFlight f) {
        return l != null && l.generation < f.generation();
    }
}
