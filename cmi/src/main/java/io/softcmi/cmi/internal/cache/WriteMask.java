package io.softcmi.cmi.internal.cache;

/**
 * A line's write mask: one bit per byte stored since the line's last write-back, in a
 * {@code long[]} (bit {@code i % 64} of word {@code i / 64} for byte {@code i}). A store sets its
 * bits with one or two word operations (a typed store of up to 8 bytes never needs a loop), and
 * the write-back walks the mask a word at a time. Used under the cache's lock.
 */
final class WriteMask {
    private WriteMask() {
    }

    /** @return an empty mask for a line of {@code lineSize} bytes */
    static long[] of(int lineSize) {
        return new long[(lineSize + 63) >>> 6];
    }

    /** Marks bytes {@code [at, at + n)} stored ({@code n > 0}). */
    static void set(long[] mask, int at, int n) {
        int end = at + n;
        int w = at >>> 6;
        int last = (end - 1) >>> 6;
        if (w == last) {
            mask[w] |= (-1L >>> (64 - n)) << at; // shifts use the low 6 bits of at
            return;
        }
        mask[w] |= -1L << at;
        for (w++; w < last; w++) {
            mask[w] = -1L;
        }
        mask[last] |= -1L >>> (64 - ((end & 63) == 0 ? 64 : end & 63));
    }

    /** @return the first stored byte at or after {@code from}, or -1 */
    static int nextSet(long[] mask, int from) {
        int w = from >>> 6;
        if (w >= mask.length) {
            return -1;
        }
        long bits = mask[w] & (-1L << from);
        while (bits == 0) {
            if (++w == mask.length) {
                return -1;
            }
            bits = mask[w];
        }
        return (w << 6) + Long.numberOfTrailingZeros(bits);
    }

    /** @return the first byte at or after {@code from} not stored (the mask's length in bits when every one is) */
    static int nextClear(long[] mask, int from) {
        int w = from >>> 6;
        if (w >= mask.length) {
            return from;
        }
        long bits = ~mask[w] & (-1L << from);
        while (bits == 0) {
            if (++w == mask.length) {
                return mask.length << 6;
            }
            bits = ~mask[w];
        }
        return (w << 6) + Long.numberOfTrailingZeros(bits);
    }
}
