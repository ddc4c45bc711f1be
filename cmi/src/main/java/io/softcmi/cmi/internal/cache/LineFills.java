package io.softcmi.cmi.internal.cache;

import io.softcmi.cmi.internal.cache.SegmentCache.Line;
import java.util.ArrayDeque;
import java.util.HashMap;

/**
 * The misses of one {@link SegmentCache} (docs/cache.md, "Misses", "Concurrent misses"): a
 * load's miss sends its {@code FILL} under the cache's lock and waits for the reply without
 * it, so concurrent misses share round trips; a thread that misses a line already being filled
 * waits for that fill; sequential misses read ahead (1, 2, 4, ... up to
 * {@link SegmentCache#MAX_READ_AHEAD} lines); a bulk read requests every run of absent lines
 * at once ({@link #prefetch}); a fill that an acquire made stale while in flight is dropped and
 * sent again. Its state is guarded by the cache's lock ({@link #miss} and {@link #prefetch}
 * take it; the other methods are called holding it).
 */
final class LineFills {
    /**
     * Most fills one bulk read keeps in flight (of up to {@link SegmentCache#MAX_READ_AHEAD} lines each): a
     * large read streams through this window instead of asking for everything before reading
     * any reply, which would leave the home writing into a full socket.
     */
    private static final int MAX_FILLS_IN_FLIGHT = 8;
    /** Misses of one access sent without the lock before it fills under the lock (a line evicted or made stale again and again). */
    static final int MISS_ATTEMPTS = 3;

    private final SegmentCache c;
    /** Misses in flight by line: another thread missing the same line waits for the same fill. */
    private final HashMap<Long, Fill> filling = new HashMap<>();
    private long lastMiss = -2;
    private int readAhead = 1;

    LineFills(SegmentCache cache) {
        this.c = cache;
    }

    /**
     * A miss: sends a fill (or joins one in flight for the line) under the lock, then waits for
     * the reply without it, so misses of other threads to other lines are sent meanwhile and
     * share the connection's round trip. A fill that an acquire made stale while it was in
     * flight is dropped and the miss sent again.
     */
    Line miss(long idx) {
        for (int attempt = 0; ; attempt++) {
            Fill f;
            c.lock.lock();
            try {
                Line l = c.lines[(int) idx];
                if (l != null) {
                    return l;
                }
                if (attempt >= MISS_ATTEMPTS) {
                    return fillLocked(idx); // stale or evicted again and again: fill under the lock
                }
                f = filling.get(idx);
                if (f == null) {
                    f = startMiss(idx);
                }
            } finally {
                c.lock.unlock();
            }
            f.pending().await();
            c.lock.lock();
            try {
                Line l = install(f, idx); // a fill another thread started may begin at an earlier line
                if (l == null) {
                    l = c.lines[(int) idx];
                }
                if (l != null) {
                    return l;
                }
            } finally {
                c.lock.unlock();
            }
        }
    }

    /**
     * Sends the fill of a miss at {@code idx} now, without waiting for it, unless the line is
     * cached or being filled; a later {@link #miss} joins it ({@link CacheAcquire#settleBefore}).
     */
    void startAhead(long idx) {
        c.lock.lock();
        try {
            if (c.lines[(int) idx] == null && !filling.containsKey(idx)) {
                startMiss(idx);
            }
        } finally {
            c.lock.unlock();
        }
    }

    /**
     * Before a bulk write of {@code [off, off + len)}: fills the lines it writes in part (its
     * first and its last) that are absent, as misses, so the write needs no fill while it holds
     * the lock and other threads' misses are not held behind these round trips. Lines it writes
     * whole need no fill. Called without the lock.
     */
    void missPartLines(long off, long len) {
        if (len > 0) {
            missIfPartial(off, len, off >>> c.shift);
            missIfPartial(off, len, (off + len - 1) >>> c.shift);
        }
    }

    private void missIfPartial(long off, long len, long idx) {
        long lineStart = idx << c.shift;
        int valid = c.validLength(idx);
        boolean whole = off <= lineStart && off + len >= lineStart + valid;
        if (!whole && SegmentCache.SLOT.getAcquire(c.lines, (int) idx) == null) {
            miss(idx);
        }
    }

    /** Sends the fill of a miss at {@code idx} with its read-ahead, and registers it. Holds the lock. */
    private Fill startMiss(long idx) {
        readAhead = idx == lastMiss + 1 ? Math.min(readAhead * 2, SegmentCache.MAX_READ_AHEAD) : 1;
        long limit = Math.min(Math.min(readAhead, c.capacityLines), c.lineCount - idx);
        int n = 1;
        while (n < limit && c.lines[(int) (idx + n)] == null && !filling.containsKey(idx + n)) {
            n++;
        }
        lastMiss = idx + n - 1;
        Fill f = startFill(idx, n);
        f.registered = true;
        for (int i = 0; i < n; i++) {
            filling.put(idx + i, f);
        }
        return f;
    }

    /** Fills line {@code idx} and, for sequential misses, the absent lines after it. Holds the lock. */
    Line fillLocked(long idx) {
        readAhead = idx == lastMiss + 1 ? Math.min(readAhead * 2, SegmentCache.MAX_READ_AHEAD) : 1;
        long limit = Math.min(Math.min(readAhead, c.capacityLines), c.lineCount - idx);
        int n = 1;
        while (n < limit && c.lines[(int) (idx + n)] == null) {
            n++;
        }
        lastMiss = idx + n - 1;
        Line l = install(startFill(idx, n), idx);
        return l != null ? l : c.lines[(int) idx];
    }

    /**
     * A bulk read of lines {@code [first, last]}: every run of absent lines is requested without
     * waiting for the previous one (one {@code FILL} per run of at most {@link SegmentCache#MAX_READ_AHEAD}
     * lines, up to {@link #MAX_FILLS_IN_FLIGHT} in flight), instead of one miss after another
     * with a growing read-ahead. Spans larger than the cache's capacity are left to the
     * line-by-line misses. Like a single miss, it sends under the cache's lock and waits for each
     * reply without it (docs/cache.md, "Concurrent misses"): its fills are registered as misses
     * in flight, so another thread that misses one of its lines joins that fill, a miss of
     * another line is sent meanwhile, and an acquire that reports a write to its lines while
     * they travel makes them stale (they are then not installed, and the read's line-by-line
     * pass fetches them again). Before 2026-11-28 it held the lock until its last reply came.
     */
    void prefetch(long first, long last) {
        boolean absent = false;
        for (long i = first; i <= last && !absent; i++) {
            absent = SegmentCache.SLOT.getAcquire(c.lines, (int) i) == null;
        }
        if (!absent || last - first + 1 > c.capacityLines) {
            return;
        }
        ArrayDeque<Fill> fills = new ArrayDeque<>();
        LineFault failed = null;
        long next = first;
        while (true) {
            c.lock.lock();
            try {
                next = startFills(next, last, fills);
                if (fills.isEmpty()) {
                    lastMiss = last;
                    readAhead = SegmentCache.MAX_READ_AHEAD;
                    break;
                }
            } finally {
                c.lock.unlock();
            }
            Fill f = fills.poll();
            f.pending().await(); // without the lock: other threads' misses go out meanwhile
            c.lock.lock();
            try {
                failed = installOrKeep(f, failed);
            } finally {
                c.lock.unlock();
            }
        }
        if (failed != null) {
            throw failed;
        }
    }

    /**
     * Sends fills for the runs of absent lines from {@code from} up to {@code last} that no fill
     * in flight covers, until {@code inFlight} holds {@link #MAX_FILLS_IN_FLIGHT}, and registers
     * them as misses in flight. Holds the lock.
     *
     * @return the first line not looked at yet
     */
    private long startFills(long from, long last, ArrayDeque<Fill> inFlight) {
        long i = from;
        while (i <= last && inFlight.size() < MAX_FILLS_IN_FLIGHT) {
            if (c.lines[(int) i] != null || filling.containsKey(i)) {
                i++;
                continue;
            }
            int n = 1;
            while (n < SegmentCache.MAX_READ_AHEAD && i + n <= last && c.lines[(int) (i + n)] == null
                    && !filling.containsKey(i + n)) {
                n++;
            }
            Fill f = startFill(i, n);
            f.registered = true;
            for (int k = 0; k < n; k++) {
                filling.put(i + k, f);
            }
            inFlight.add(f);
            i += n;
        }
        return i;
    }

    private LineFault installOrKeep(Fill f, LineFault failed) {
        try {
            install(f, -1);
            return failed;
        } catch (LineFault e) {
            return failed == null ? e : failed;
        }
    }

    /** A fill request in flight: lines {@code [idx, idx + n)}. Its flags are guarded by the lock. */
    private static final class Fill {
        final long idx;
        final int n;
        final byte[] buf;
        final LineTransport.Pending pending;
        /** {@link CacheAcquire#generation} when it was sent: acquires of this generation or older were sent before it. */
        final long generation;
        /** An acquire reported a write to its lines after the home answered it: never install. */
        boolean stale;
        /** Installed (or dropped) already: later waiters find the lines in the table. */
        boolean settled;
        /** Registered in {@link #filling} (a miss's or a bulk read's fill; not {@link #fillLocked}'s). */
        boolean registered;
        /**
         * The largest epoch from which an acquire sent while this fill was in flight asked for
         * writes ({@link #acquiring}), or -1: a reply answered before that epoch may lack a write
         * that acquire does not report, so it is never installed.
         */
        long askedSince = -1;

        Fill(long idx, int n, byte[] buf, LineTransport.Pending pending, long generation) {
            this.idx = idx;
            this.n = n;
            this.buf = buf;
            this.pending = pending;
            this.generation = generation;
        }

        LineTransport.Pending pending() {
            return pending;
        }
    }

    /** Sends a fill of {@code n} lines from {@code idx}. Holds the lock. */
    private Fill startFill(long idx, int n) {
        long start = idx << c.shift;
        int len = (int) Math.min((long) n * c.lineSize, c.size - start);
        byte[] buf = new byte[len];
        return new Fill(idx, n, buf, c.transport.fill(start, buf, 0, len), c.acquireGeneration());
    }

    /**
     * Waits for a fill and installs its lines, once: lines already in the table (filled or
     * written by another path meanwhile) are kept, lines another path put in the table while
     * it travelled are not installed even if they left the table since ({@link #superseded}:
     * its bytes are older than theirs), and a stale fill installs nothing, nor one answered
     * before the epoch an acquire sent meanwhile asked from ({@link #acquiring}). Holds
     * the lock.
     *
     * @param want the index of the line the caller wants back (-1: none)
     * @return the line at {@code want} if this call installed it, else null
     * @throws LineFault if the home refused the fill
     */
    Line install(Fill f, long want) {
        LineTransport.Pending p = f.pending();
        int status = p.await();
        if (f.settled) {
            return null;
        }
        f.settled = true;
        long mine = 0; // bit i: line f.idx + i is still this fill's to install (n <= MAX_READ_AHEAD <= 64)
        for (int i = 0; i < f.n; i++) {
            if (filling.remove(f.idx + i, f) || !f.registered) {
                mine |= 1L << i;
            }
        }
        int len = f.buf.length;
        long start = f.idx << c.shift;
        c.stats.misses.increment();
        c.stats.fills.increment();
        c.stats.fillBytes.add(len);
        if (status != 0) {
            throw new LineFault(status, start, false);
        }
        long seen = p.value() >>> 1;
        if (f.stale || seen < f.askedSince) {
            return null;
        }
        // The fill saw every write up to its epoch. Fills of several threads may be installed
        // out of order: keeping the oldest makes the next acquire report enough.
        c.sawEpoch(seen);
        boolean writable = (p.value() & 1) != 0;
        Line wanted = null;
        for (int i = 0; i < f.n; i++) {
            if ((mine & 1L << i) == 0 || c.lines[(int) (f.idx + i)] != null) {
                continue;
            }
            c.makeRoom();
            byte[] d;
            if (f.n == 1 && len == c.lineSize) {
                d = f.buf; // a one-line fill's buffer is the line: no copy
            } else {
                d = new byte[c.lineSize];
                int from = i * c.lineSize;
                System.arraycopy(f.buf, from, d, 0, Math.min(c.lineSize, len - from));
            }
            Line l = new Line(d, writable);
            l.generation = f.generation;
            c.installLine(f.idx + i, l);
            if (f.idx + i == want) {
                wanted = l;
            }
        }
        return wanted;
    }

    /**
     * Line {@code idx} is put in the table by another path than the fill in flight over it, if
     * any (a bulk write of the whole line, {@link #fillLocked}'s read-ahead): that fill's bytes
     * for it are older, so it must not install them, not even after the line left the table
     * again (an eviction); a later miss sends a fill of its own. Holds the lock.
     */
    void superseded(long idx) {
        if (!filling.isEmpty()) {
            filling.remove(idx);
        }
    }

    /**
     * An acquire that asks for the writes after epoch {@code since} is sent now. A fill in
     * flight may have been answered before {@code since} (the cache's epoch can come from a fill
     * sent after it and installed first): the writes between its epoch and {@code since} are in
     * no acquire's reply, so its reply is not installed if it is older than {@code since}
     * ({@link #install}). Holds the lock.
     */
    void acquiring(long since) {
        for (Fill f : filling.values()) {
            f.askedSince = Math.max(f.askedSince, since);
        }
    }

    /**
     * Marks the fills in flight over lines {@code [first, last]} (all of them when
     * {@code first < 0}) stale, those sent before acquire {@code generation}: a fill sent behind
     * it was served after it. Holds the lock.
     */
    void stale(long first, long last, long generation) {
        if (filling.isEmpty()) {
            return;
        }
        for (var e : filling.entrySet()) {
            if ((first < 0 || e.getKey() >= first && e.getKey() <= last) && e.getValue().generation < generation) {
                e.getValue().stale = true;
            }
        }
    }
}
