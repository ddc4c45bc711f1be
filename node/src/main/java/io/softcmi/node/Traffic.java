package io.softcmi.node;

import java.math.BigDecimal;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Remote data traffic of one peer node or one segment at its home: requests, bytes read and
 * written, requests refused, and the home's service time per request as a histogram with fixed
 * buckets (1, 2, 3, 5 and 7 times each power of ten from 1 µs to 7 s), so that a reader can
 * compute quantiles of any interval from two samples ({@code cmiadm top}). Written by the I/O
 * loops without locks ({@link LongAdder}s); read by the metrics endpoint.
 */
final class Traffic {
    /** Upper bounds of the service-time buckets, ns; a last bucket takes everything above. */
    static final long[] BOUNDS_NANOS = bounds();

    final LongAdder requests = new LongAdder();
    final LongAdder bytesRead = new LongAdder();
    final LongAdder bytesWritten = new LongAdder();
    final LongAdder refused = new LongAdder();
    final LongAdder serviceNanos = new LongAdder();
    private final LongAdder[] buckets = new LongAdder[BOUNDS_NANOS.length + 1];

    Traffic() {
        for (int i = 0; i < buckets.length; i++) {
            buckets[i] = new LongAdder();
        }
    }

    private static long[] bounds() {
        long[] steps = {1, 2, 3, 5, 7};
        long[] b = new long[7 * steps.length];
        int i = 0;
        for (long decade = 1_000; decade <= 1_000_000_000; decade *= 10) {
            for (long s : steps) {
                b[i++] = s * decade;
            }
        }
        return b;
    }

    /**
     * Records one request.
     *
     * @param read bytes read from the segment
     * @param written bytes written to it
     * @param wasRefused whether it was answered with an access error
     * @param nanos the home's service time
     */
    void record(long read, long written, boolean wasRefused, long nanos) {
        requests.increment();
        if (read != 0) {
            bytesRead.add(read);
        }
        if (written != 0) {
            bytesWritten.add(written);
        }
        if (wasRefused) {
            refused.increment();
        }
        serviceNanos.add(nanos);
        buckets[bucket(nanos)].increment();
    }

    /** @return the index of the bucket that holds {@code nanos} */
    static int bucket(long nanos) {
        int lo = 0;
        int hi = BOUNDS_NANOS.length; // answer in [lo, hi]
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (nanos <= BOUNDS_NANOS[mid]) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }

    /**
     * @return how many requests fell into each bucket, not cumulative (the last: above the last bound)
     */
    long[] bucketCounts() {
        long[] c = new long[buckets.length];
        for (int i = 0; i < c.length; i++) {
            c[i] = buckets[i].sum();
        }
        return c;
    }

    /**
     * A bucket bound as Prometheus writes {@code le}: seconds, plain decimal.
     *
     * @param i a bucket index below {@code BOUNDS_NANOS.length}
     * @return for example {@code 0.000005}
     */
    static String le(int i) {
        return BigDecimal.valueOf(BOUNDS_NANOS[i]).movePointLeft(9).stripTrailingZeros().toPlainString();
    }

    /**
     * Traffic by key (a peer's node id, a segment id), bounded: beyond {@code max} keys, new
     * keys are not tracked (they count in the node's totals only).
     *
     * @param <K> the key
     */
    static final class Table<K> {
        private final Map<K, Traffic> map = new ConcurrentHashMap<>();
        private final int max;

        Table(int max) {
            this.max = max;
        }

        /**
         * @param key a key
         * @return its traffic, or null when the table is full and does not hold it
         */
        Traffic of(K key) {
            Traffic t = map.get(key);
            if (t != null || map.size() >= max) {
                return t;
            }
            return map.computeIfAbsent(key, k -> new Traffic());
        }

        /** @return the entries (live view) */
        Map<K, Traffic> entries() {
            return map;
        }

        /**
         * Drops the keys {@code keep} rejects (segments that are gone).
         *
         * @param keep which keys stay
         */
        void retain(java.util.function.Predicate<K> keep) {
            map.keySet().removeIf(k -> !keep.test(k));
        }
    }
}
