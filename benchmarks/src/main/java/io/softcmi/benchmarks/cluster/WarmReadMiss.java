package io.softcmi.benchmarks.cluster;

import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * {@link CacheBenchmark}'s warm read-miss figure: the miss once both JVMs have run it for
 * {@link #WARM_UP_SECONDS} (their JIT compilers idle again), timed in {@link #BLOCKS} blocks that
 * alternate with blocks of the raw polling ping-pong, so that both figures come from the same
 * seconds. Right after start, both JVMs' compiler threads keep a core each busy for seconds: the
 * machine then has threads waiting for a core, and the home blocks between requests
 * (docs/architecture.md 7.5, the runnable-count rule; docs/benchmarks.md, "Read miss: the JIT
 * compilers keep the home blocked for the first seconds").
 */
final class WarmReadMiss {
    /**
     * Seconds of untimed misses (and raw round trips) before the figure
     * ({@code -Dbench.cache.missWarmUpSeconds=N}, default 5): measured 2026-11-28, the compiler
     * threads of the client and of the home daemon were still running through the first 20,000
     * misses, two to three seconds after start.
     */
    static final int WARM_UP_SECONDS = Integer.getInteger("bench.cache.missWarmUpSeconds", 5);
    /** Blocks of timed misses, alternating with as many blocks of raw round trips. */
    static final int BLOCKS = 5;
    private static final long TWO_MIB = 2L << 20;

    private WarmReadMiss() {
    }

    /**
     * Measures and appends the figure's line to {@code out}.
     *
     * @param ctx the importing context
     * @param m its mapping of the segment (the home holds a writable attach: each read after
     *     {@code rmb} misses)
     * @param line the cache line size
     * @param misses timed misses (and raw round trips)
     * @param children the cluster's processes, the home daemon first; the raw server is added
     * @param out where the line goes
     * @return a checksum of the values read
     * @throws Exception if the raw server cannot be started or its connection fails
     */
    static long measure(CmiContext ctx, CmiMapping m, int line, int misses, List<Process> children, StringBuilder out)
            throws Exception {
        // A server whose threads poll only while their connection is open, one connection per
        // block: an echo peer polling between blocks would be a third spinning thread on the two
        // cores during the misses.
        int port = ClusterBench.port(children, "pollserver", "72", Integer.toString(24 + line));
        ByteBuffer req = ByteBuffer.allocateDirect(72);
        ByteBuffer rep = ByteBuffer.allocateDirect(24 + line);
        Path home = Path.of("/proc", Long.toString(children.get(0).pid()));
        long sum = 0;
        long start = System.nanoTime();
        long untimed = 0;
        int i = 0;
        // The untimed and the timed misses run in one method (missBlock), so the timed ones run
        // the code compiled during the untimed ones (a loop of their own would start interpreted).
        long[] scratch = new long[1000];
        long[] checksum = new long[1];
        while (System.nanoTime() - start < WARM_UP_SECONDS * 1_000_000_000L) {
            i = missBlock(ctx, m, line, i, scratch.length, scratch, 0, checksum);
            rawRounds(port, 1000, 0, req, rep, null, 0);
            untimed += 1000;
        }
        int block = Math.max(1, misses / BLOCKS);
        long[] raw = new long[block * BLOCKS];
        long[] miss = new long[block * BLOCKS];
        long homeSwitches = 0;
        for (int b = 0; b < BLOCKS; b++) {
            rawRounds(port, 500, block, req, rep, raw, b * block);
            long switches = CacheBenchmark.voluntarySwitches(home);
            i = missBlock(ctx, m, line, i, block, miss, b * block, checksum);
            homeSwitches += CacheBenchmark.voluntarySwitches(home) - switches;
        }
        Arrays.sort(raw);
        Arrays.sort(miss);
        out.append(String.format(Locale.ROOT, "read miss, warm (after %d s of untimed misses, %d, and as many raw round trips;"
            + " %d blocks of each, alternating): miss p50 %.1f us, p99 %.1f us; raw polling ping-pong p50 %.1f us, p99 %.1f us;"
            + " p50/raw %.2f; home daemon's voluntary context switches per miss %.2f%n", WARM_UP_SECONDS, untimed,
            BLOCKS, ChildProcesses.pct(miss, 50) / 1e3, ChildProcesses.pct(miss, 99) / 1e3, ChildProcesses.pct(raw, 50) / 1e3,
            ChildProcesses.pct(raw, 99) / 1e3, (double) ChildProcesses.pct(miss, 50) / ChildProcesses.pct(raw, 50),
            (double) homeSwitches / miss.length));
        return sum + checksum[0];
    }

    /**
     * Times {@code count} misses, each after an {@code rmb}.
     *
     * @param i the index of the first miss (it picks the line, {@link #offset})
     * @param times where the times go, from {@code at}
     * @param checksum gets the values read added (so the loads are not dropped)
     * @return the index after the last miss
     */
    private static int missBlock(CmiContext ctx, CmiMapping m, int line, int i, int count, long[] times, int at,
            long[] checksum) {
        long sum = 0;
        for (int k = 0; k < count; k++, i++) {
            ctx.rmb();
            long off = offset(i, line);
            long t = System.nanoTime();
            sum += m.getLong(off);
            times[at + k] = System.nanoTime() - t;
        }
        checksum[0] += sum;
        return i;
    }

    /** The line the {@code i}-th miss reads: every other line of the first 2 MiB, in turn. */
    static long offset(int i, int line) {
        return (long) (i % 512) * line * 2 % TWO_MIB;
    }

    /**
     * Round trips of the raw polling ping-pong on a connection of their own, closed after them
     * (the server's thread for it stops polling then).
     *
     * @param warm untimed round trips first
     * @param timed round trips timed into {@code times} from {@code at} (0: none)
     */
    private static void rawRounds(int port, int warm, int timed, ByteBuffer req, ByteBuffer rep, long[] times, int at)
            throws IOException {
        try (SocketChannel ch = CacheBenchmark.connect(port)) {
            for (int k = 0; k < warm + timed; k++) {
                long t = System.nanoTime();
                RawTcpPeer.pollRound(ch, req, rep);
                if (k >= warm) {
                    times[at + k - warm] = System.nanoTime() - t;
                }
            }
        }
    }
}
