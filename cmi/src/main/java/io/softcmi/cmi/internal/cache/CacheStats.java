package io.softcmi.cmi.internal.cache;

import java.util.LinkedHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of caches of imported segments (see {@code docs/cache.md} "Counters"): one set per
 * context ({@link ContextCache#stats()}, reported to the node daemon for {@code cmiadm caches}),
 * each adding also to the set of the whole process ({@link #process()}, read by benchmarks).
 */
public final class CacheStats {
    private static final CacheStats PROCESS = new CacheStats();

    /** @return the counters of every cache of this process */
    public static CacheStats process() {
        return PROCESS;
    }

    /** Fresh counters without a parent (tests use their own). */
    public CacheStats() {
        this(null);
    }

    /**
     * Fresh counters that also add to {@code parent}.
     *
     * @param parent counters every increment also goes to, or null
     */
    public CacheStats(CacheStats parent) {
        misses = new Counter(parent == null ? null : parent.misses);
        fills = new Counter(parent == null ? null : parent.fills);
        fillBytes = new Counter(parent == null ? null : parent.fillBytes);
        writeBackLines = new Counter(parent == null ? null : parent.writeBackLines);
        diffs = new Counter(parent == null ? null : parent.diffs);
        diffBytes = new Counter(parent == null ? null : parent.diffBytes);
        acquires = new Counter(parent == null ? null : parent.acquires);
        invalidations = new Counter(parent == null ? null : parent.invalidations);
        evictions = new Counter(parent == null ? null : parent.evictions);
        backgroundWriteBacks = new Counter(parent == null ? null : parent.backgroundWriteBacks);
    }

    /** One counter: adds to its own sum and to its parent's. */
    static final class Counter {
        private final LongAdder sum = new LongAdder();
        private final Counter parent;

        Counter(Counter parent) {
            this.parent = parent;
        }

        void increment() {
            add(1);
        }

        void add(long n) {
            sum.add(n);
            if (parent != null) {
                parent.add(n);
            }
        }

        long sum() {
            return sum.sum();
        }
    }

    final Counter misses;
    final Counter fills;
    final Counter fillBytes;
    final Counter writeBackLines;
    final Counter diffs;
    final Counter diffBytes;
    final Counter acquires;
    final Counter invalidations;
    final Counter evictions;
    final Counter backgroundWriteBacks;

    /** @return the counters by name, in a fixed order */
    public LinkedHashMap<String, Long> snapshot() {
        LinkedHashMap<String, Long> m = new LinkedHashMap<>();
        m.put("misses", misses.sum());
        m.put("fills", fills.sum());
        m.put("fill_bytes", fillBytes.sum());
        m.put("write_back_lines", writeBackLines.sum());
        m.put("diffs", diffs.sum());
        m.put("diff_bytes", diffBytes.sum());
        m.put("acquires", acquires.sum());
        m.put("invalidations", invalidations.sum());
        m.put("evictions", evictions.sum());
        m.put("background_write_backs", backgroundWriteBacks.sum());
        return m;
    }

    @Override
    public String toString() {
        return snapshot().toString();
    }
}
