package io.softcmi.cmi.internal;

import java.util.Arrays;

/**
 * Ranges in flux as a flat array of sorted, disjoint {@code [start, end)} pairs
 * ({@code start0, end0, start1, end1, ...}): as the node announces them to its processes, and as
 * the node keeps them ({@code io.softcmi.node.FluxRanges}).
 */
public final class FluxPairs {
    private FluxPairs() {
    }

    /**
     * @param pairs the ranges, as pairs
     * @param start first byte taken out
     * @param end end of the range taken out (exclusive)
     * @return the ranges without {@code [start, end)}: pairs that overlap it are cut, one that
     *         contains it is split in two
     */
    public static long[] without(long[] pairs, long start, long end) {
        long[] out = new long[pairs.length + 2];
        int n = 0;
        for (int i = 0; i + 1 < pairs.length; i += 2) {
            long s = pairs[i];
            long e = pairs[i + 1];
            if (e <= start || s >= end) {
                out[n++] = s;
                out[n++] = e;
                continue;
            }
            if (s < start) {
                out[n++] = s;
                out[n++] = start;
            }
            if (e > end) {
                out[n++] = end;
                out[n++] = e;
            }
        }
        return Arrays.copyOf(out, n);
    }
}
