package io.softcmi.cmi.internal.cache;

import io.softcmi.cmi.internal.cache.SegmentCache.Flight;
import io.softcmi.cmi.internal.cache.SegmentCache.Line;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * The releases of one {@link SegmentCache} ({@code docs/cache.md}, "Release points"): the diffs
 * of its dirty lines (all of them, those one thread stored to, or those of a range), packed into
 * {@code DIFF} frames ({@link DiffFrames}) and sent; {@link SegmentCache#finish} waits for them.
 * A release is complete only when every write-back in flight is acknowledged, including those
 * another thread or the background writer started: the lines they carry already count as clean.
 * Its state is guarded by the cache's lock.
 */
final class CacheRelease {
    private final SegmentCache c;
    private final DiffFrames frames;
    /** Write-backs sent and maybe not acknowledged yet: every release waits for them too. */
    private final List<Flight> inFlight = new ArrayList<>();
    /** {@link #inFlight}'s size, for readers without the lock. */
    private volatile int inFlightCount;

    CacheRelease(SegmentCache cache, DiffFrames frames) {
        this.c = cache;
        this.frames = frames;
    }

    /** A release of every dirty line. @return the flights to wait for */
    List<Flight> all() {
        if (c.dirtyLines == 0 && inFlightCount == 0) {
            return List.of();
        }
        c.lock.lock();
        try {
            return pending(send(c.dirty, 0, Integer.MAX_VALUE));
        } finally {
            c.lock.unlock();
        }
    }

    /** A release of the lines {@code thread} stored to since its last one ({@code flush_fb}). @return the flights to wait for */
    List<Flight> thread(Thread thread) {
        c.lock.lock();
        try {
            BitSet mine = c.threadLines.remove(thread);
            if (mine == null) {
                return List.of();
            }
            return pending(send(mine, 0, Integer.MAX_VALUE));
        } finally {
            c.lock.unlock();
        }
    }

    /** A release of the dirty lines holding {@code [off, off + len)} ({@code cflush}). @return the flights to wait for */
    List<Flight> range(long off, long len) {
        if (c.dirtyLines == 0 && inFlightCount == 0 || len <= 0) {
            return List.of();
        }
        c.lock.lock();
        try {
            return pending(send(c.dirty, (int) (off >>> c.shift), (int) Math.min(c.lineCount - 1, (off + len - 1) >>> c.shift)));
        } finally {
            c.lock.unlock();
        }
    }

    /**
     * Every write-back still unacknowledged, including those another thread (or the background
     * writer) started: a release is complete only when they are, since the lines they carry
     * already count as clean. Holds the lock.
     */
    private List<Flight> pending(List<Flight> sent) {
        inFlight.removeIf(f -> f.pending().done());
        inFlightCount = inFlight.size();
        List<Flight> all = new ArrayList<>(sent);
        Set<Flight> mine = Collections.newSetFromMap(new IdentityHashMap<>());
        mine.addAll(sent);
        inFlight.stream().filter(f -> !mine.contains(f)).forEach(all::add);
        return all;
    }

    /**
     * Builds and sends the diffs of the dirty lines among {@code which}'s indices in
     * {@code [from, to]}, in increasing order; they count as clean from here on. Holds the lock.
     *
     * @return the flights sent
     */
    List<Flight> send(BitSet which, int from, int to) {
        // Raised before dirtyLines falls: a release on another thread that reads dirtyLines == 0
        // without the lock then reads a non-zero inFlightCount, takes the lock, and waits for
        // these flights instead of returning before they are acknowledged.
        inFlightCount = inFlight.size() + c.dirtyCount;
        List<Flight> sent = new ArrayList<>();
        int written = 0; // counted once at the end, not per line (two LongAdder increments a line, with the process's counters)
        frames.begin(sent);
        try {
            for (int idx = which.nextSetBit(from); idx >= 0 && idx <= to; idx = which.nextSetBit(idx + 1)) {
                Line l = c.lines[idx];
                if (l != null && l.dirty()) {
                    frames.addLine((long) idx << c.shift, l.data, l.stored, c.validLength(idx));
                    l.stored = null;
                    written++;
                }
                if (c.dirty.get(idx)) {
                    c.dirty.clear(idx); // which may be dirty itself: clearing the bit just visited is safe
                    c.dirtyCount--;
                }
            }
        } finally {
            c.stats.writeBackLines.add(written);
            frames.end();
            c.dirtyLines = c.dirtyCount;
            inFlight.addAll(sent);
            inFlightCount = inFlight.size();
        }
        return sent;
    }
}
