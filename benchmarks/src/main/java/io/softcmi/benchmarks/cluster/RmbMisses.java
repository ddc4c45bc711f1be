package io.softcmi.benchmarks.cluster;

import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import java.lang.management.ThreadMXBean;

/**
 * {@link CacheBenchmark}'s read misses after {@code rmb}: each round makes an {@code rmb} (which
 * invalidates the cached lines, the home holding a writable attach), then reads one line, and
 * records both times and the thread's CPU time of the read. The untimed and the timed misses are
 * two instances run by this one method, so the timed ones run the loop compiled during the
 * untimed ones: a branch that first switched to recording at the timed run's start would
 * deoptimize the compiled loop there.
 */
final class RmbMisses {
    /** Each read's time (ns). */
    final long[] miss;
    /** Each {@code rmb}'s time (ns). */
    final long[] acquire;
    /** The reading thread's CPU time over the reads (ns). */
    long cpuNanos;

    /** @param count the misses to make */
    RmbMisses(int count) {
        this.miss = new long[count];
        this.acquire = new long[count];
    }

    /**
     * Makes the misses.
     *
     * @param ctx the importing context
     * @param m its mapping of the segment
     * @param line the cache line size
     * @param first the index of the first miss (it picks the line, {@link WarmReadMiss#offset})
     * @param cpu the JVM's thread CPU clock
     * @return a checksum of the values read
     */
    long run(CmiContext ctx, CmiMapping m, int line, int first, ThreadMXBean cpu) {
        long sum = 0;
        for (int k = 0; k < miss.length; k++) {
            int i = first + k;
            long r = System.nanoTime();
            ctx.rmb();
            acquire[k] = System.nanoTime() - r;
            long off = WarmReadMiss.offset(i, line);
            long c0 = cpu.getCurrentThreadCpuTime();
            long s = System.nanoTime();
            sum += m.getLong(off);
            miss[k] = System.nanoTime() - s;
            cpuNanos += cpu.getCurrentThreadCpuTime() - c0;
        }
        return sum;
    }
}
