package io.softcmi.cmi.internal.cache;

/**
 * The line one thread last read from one {@link SegmentCache} (docs/cache.md, "Hits"): a load
 * that falls in that line reads the line's bytes straight away, without the table. The hint
 * is valid while its line is in the table: every line that leaves it (an acquire's
 * invalidation, an eviction, a new token, a detach) is marked dropped ({@code Line.dropped},
 * volatile) as its slot is cleared, so a hint never serves a dropped line, and a hit costs a
 * few loads and a bounds check. A line is never refilled in place, so a valid hint reads
 * exactly what a lookup in the table would.
 *
 * <p>Only the owner thread reads or writes the mutable fields; another thread that finds a
 * hint it does not own makes its own.
 */
public final class LineHint {
    private final Thread owner;
    /** The cache of the hinted line: a hit checks that no acquire of it is pending ({@code rmb}). */
    SegmentCache cache;
    /** The hinted line: a hit checks that it is still in the table. */
    SegmentCache.Line line;
    byte[] data;
    long base;
    /** Bytes of the line that belong to the segment; -1 while the hint points nowhere. */
    int limit = -1;

    /**
     * A hint that points nowhere yet.
     *
     * @param owner the only thread that may use it
     */
    public LineHint(Thread owner) {
        this.owner = owner;
    }

    /** Points the hint at nothing: no load hits it until it is aimed again. Owner thread only. */
    public void clear() {
        limit = -1;
    }

    /** @return the thread that owns this hint */
    public Thread owner() {
        return owner;
    }

    /**
     * Whether a load of {@code width} bytes at {@code off} can read the hinted line: it lies in
     * the line, the line has not left the cache since, and no deferred acquire ({@code rmb}) of
     * the cache waits to be settled. Owner thread only.
     *
     * @param off offset in the segment
     * @param width 1, 2, 4 or 8
     * @return whether {@link #get} may serve it
     */
    public boolean covers(long off, int width) {
        long at = off - base;
        return at >= 0 && at <= limit - width && !line.dropped && !cache.acquirePending;
    }

    /**
     * Loads {@code width} bytes at {@code off} (native order) from the hinted line; only after
     * {@link #covers} said yes.
     *
     * @param off offset in the segment
     * @param width 1, 2, 4 or 8
     * @return the bits
     */
    public long get(long off, int width) {
        return SegmentCache.get(data, (int) (off - base), width);
    }
}
