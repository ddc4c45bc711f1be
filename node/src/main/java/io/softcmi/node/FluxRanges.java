package io.softcmi.node;

import io.softcmi.cmi.internal.FluxPairs;
import java.util.Arrays;

/**
 * The ranges of one segment that are in flux (cmi(7) "Consistent data"): bytes a remote context
 * may have left half-written when it died (dirty cached lines it never wrote back, a bulk store
 * cut off between its chunks). Kept as sorted, disjoint, half-open {@code [start, end)} ranges;
 * {@code seg_ctl(CMI_SEG_CHECK)} asks for the lowest one in a range and
 * {@code seg_ctl(CMI_SEG_RECO)} removes a range. Not thread-safe: guarded by the engine's lock;
 * the data path reads the immutable {@link #snapshot()}.
 */
final class FluxRanges {
    /** Sorted, disjoint pairs; never changed in place (add and remove replace it), so readers may keep it. */
    private long[] pairs = new long[0];

    /** Adds {@code [start, end)}, merging it with ranges it touches. */
    void add(long start, long end) {
        if (end <= start) {
            return;
        }
        long[] out = new long[pairs.length + 2];
        int n = 0;
        long s = start;
        long e = end;
        boolean placed = false;
        for (int i = 0; i < pairs.length; i += 2) {
            if (pairs[i + 1] < s) {
                out[n++] = pairs[i];
                out[n++] = pairs[i + 1];
            } else if (pairs[i] > e) {
                if (!placed) {
                    out[n++] = s;
                    out[n++] = e;
                    placed = true;
                }
                out[n++] = pairs[i];
                out[n++] = pairs[i + 1];
            } else {
                s = Math.min(s, pairs[i]);
                e = Math.max(e, pairs[i + 1]);
            }
        }
        if (!placed) {
            out[n++] = s;
            out[n++] = e;
        }
        pairs = Arrays.copyOf(out, n);
    }

    /** Removes {@code [start, end)}: what is left of ranges it overlaps stays in flux. */
    void remove(long start, long end) {
        pairs = FluxPairs.without(pairs, start, end);
    }

    /**
     * The lowest part in flux of {@code [start, end)}.
     *
     * @return {@code {start, end}} of that part, or null if none of the range is in flux
     */
    long[] lowest(long start, long end) {
        for (int i = 0; i < pairs.length; i += 2) {
            if (pairs[i + 1] > start && pairs[i] < end) {
                return new long[] {Math.max(pairs[i], start), Math.min(pairs[i + 1], end)};
            }
        }
        return null;
    }

    /** @return true if nothing is in flux */
    boolean isEmpty() {
        return pairs.length == 0;
    }

    /** @return start and end offsets in pairs, sorted: immutable, for readers without the lock */
    long[] snapshot() {
        return pairs;
    }

    /**
     * Whether {@code [offset, offset + length)} touches a range of a {@link #snapshot()}.
     *
     * @param snapshot pairs from {@link #snapshot()}
     * @param offset first byte
     * @param length bytes (0 counts as one byte at {@code offset})
     * @return true if some byte of the access is in flux
     */
    static boolean touches(long[] snapshot, long offset, long length) {
        long end = offset + Math.max(1, length);
        for (int i = 0; i < snapshot.length; i += 2) {
            if (snapshot[i] < end && snapshot[i + 1] > offset) {
                return true;
            }
        }
        return false;
    }
}
