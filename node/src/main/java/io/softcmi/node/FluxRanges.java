package io.softcmi.node;

import java.util.ArrayList;
import java.util.List;

/**
 * The ranges of one segment that are in flux (cmi(7) "Consistent data"): bytes a remote context
 * may have left half-written when it died (dirty cached lines it never wrote back, a bulk store
 * cut off between its chunks). Kept as sorted, disjoint, half-open {@code [start, end)} ranges;
 * {@code seg_ctl(CMI_SEG_CHECK)} asks for the lowest one in a range and
 * {@code seg_ctl(CMI_SEG_RECO)} removes a range. Not thread-safe: guarded by the engine's lock;
 * the data path reads the immutable {@link #snapshot()}.
 */
final class FluxRanges {
    private final List<long[]> ranges = new ArrayList<>();

    /** Adds {@code [start, end)}, merging it with ranges it touches. */
    void add(long start, long end) {
        if (end <= start) {
            return;
        }
        List<long[]> merged = new ArrayList<>(ranges.size() + 1);
        long s = start;
        long e = end;
        for (long[] r : ranges) {
            if (r[1] < s || r[0] > e) {
                merged.add(r);
            } else {
                s = Math.min(s, r[0]);
                e = Math.max(e, r[1]);
            }
        }
        merged.add(new long[] {s, e});
        merged.sort((x, y) -> Long.compare(x[0], y[0]));
        ranges.clear();
        ranges.addAll(merged);
    }

    /** Removes {@code [start, end)}: what is left of ranges it overlaps stays in flux. */
    void remove(long start, long end) {
        List<long[]> kept = new ArrayList<>(ranges.size() + 1);
        for (long[] r : ranges) {
            if (r[1] <= start || r[0] >= end) {
                kept.add(r);
                continue;
            }
            if (r[0] < start) {
                kept.add(new long[] {r[0], start});
            }
            if (r[1] > end) {
                kept.add(new long[] {end, r[1]});
            }
        }
        ranges.clear();
        ranges.addAll(kept);
    }

    /**
     * The lowest part in flux of {@code [start, end)}.
     *
     * @return {@code {start, end}} of that part, or null if none of the range is in flux
     */
    long[] lowest(long start, long end) {
        for (long[] r : ranges) {
            if (r[1] > start && r[0] < end) {
                return new long[] {Math.max(r[0], start), Math.min(r[1], end)};
            }
        }
        return null;
    }

    /** @return true if nothing is in flux */
    boolean isEmpty() {
        return ranges.isEmpty();
    }

    /** @return start and end offsets in pairs, sorted: an immutable copy for readers without the lock */
    long[] snapshot() {
        long[] out = new long[ranges.size() * 2];
        for (int i = 0; i < ranges.size(); i++) {
            out[2 * i] = ranges.get(i)[0];
            out[2 * i + 1] = ranges.get(i)[1];
        }
        return out;
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
