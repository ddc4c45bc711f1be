package io.softcmi.cmi.internal.cache;

import java.util.LinkedHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of caches of imported segments (see {@code docs/cache.md}): one set per process,
 * added to by every context's caches, read by benchmarks and tools through {@link #process()}.
 */
public final class CacheStats {
    private static final CacheStats PROCESS = new CacheStats();

    /** @return the counters of every cache of this process */
    public static CacheStats process() {
        return PROCESS;
    }

    /** Fresh counters (tests use their own; contexts share {@link #process()}). */
    public CacheStats() {
    }

    final LongAdder misses = new LongAdder();
    final LongAdder fills = new LongAdder();
    final LongAdder fillBytes = new LongAdder();
    final LongAdder writeBackLines = new LongAdder();
    final LongAdder diffs = new LongAdder();
    final LongAdder diffBytes = new LongAdder();
    final LongAdder acquires = new LongAdder();
    final LongAdder invalidations = new LongAdder();
    final LongAdder evictions = new LongAdder();
    final LongAdder backgroundWriteBacks = new LongAdder();

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
