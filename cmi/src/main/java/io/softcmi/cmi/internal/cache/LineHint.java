package io.softcmi.cmi.internal.cache;

/**
 * The line one thread last read from one {@link SegmentCache} (docs/cache.md, "Hits"): a load
 * that falls in that line reads the line's bytes straight away, without the table. The hint is
 * valid while the {@link HintEpoch} it was aimed in is current: every line that leaves the table
 * (an acquire's invalidation, an eviction, a new token, a detach) and every deferred acquire
 * ends the cache's epoch, so a hint never serves a dropped line nor one a pending acquire may
 * drop. A line is never refilled in place and its bytes are never reused for another line, so a
 * valid hint reads exactly what a lookup in the table would, and a load racing a drop reads the
 * dropped line's own bytes (as if it had come just before the drop). A hit costs the epoch's
 * flag, the line's bounds and the bytes.
 *
 * <p>Only the owner thread reads or writes the mutable fields; another thread that finds a
 * hint it does not own makes its own.
 */
public final class LineHint {
    private static final byte[] NOWHERE = new byte[0];
    /** A hint that no thread owns: a mapping's hint before its first load. */
    public static final LineHint NONE = new LineHint(null);

    private final Thread owner;
    /** The epoch the hint was aimed in: it serves while this one is current. */
    HintEpoch epoch = HintEpoch.ENDED;
    /** The hinted line's bytes, all of which belong to the segment (a partial last line is never hinted). */
    byte[] data = NOWHERE;
    /** Segment offset of {@code data[0]}. */
    long base;

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
        epoch = HintEpoch.ENDED;
        data = NOWHERE;
    }

    /** @return the thread that owns this hint (null for {@link #NONE}) */
    public Thread owner() {
        return owner;
    }

    /**
     * Whether a load of {@code width} bytes at {@code off} can read the hinted line: it lies in
     * the line, and the epoch the hint was aimed in is still current (no line left the cache and
     * no deferred acquire ({@code rmb}) waits to be settled since). Owner thread only.
     *
     * @param off offset in the segment
     * @param width 1, 2, 4 or 8
     * @return whether {@link #get} may serve it
     */
    public boolean covers(long off, int width) {
        // The epoch first: its volatile read orders the loads after it, and {@link #get} then
        // reuses the bounds' loads of data and base.
        if (!epoch.current) {
            return false;
        }
        // One unsigned comparison: below 0 or past the line both fail. An aimed line holds at
        // least 8 bytes (SegmentCache#aim), and an empty one only goes with an ended epoch.
        return Long.compareUnsigned(off - base, data.length - width) <= 0;
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
        return LineWords.get(data, (int) (off - base), width);
    }
}
