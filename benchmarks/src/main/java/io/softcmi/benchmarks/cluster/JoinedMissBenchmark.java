package io.softcmi.benchmarks.cluster;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.RemoteSegmentHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Whole-cluster benchmark of two threads of one context missing the same line at once
 * (docs/cache.md, "Concurrent misses"): one sends the fill, the other joins it and must be woken
 * when its reply is in. Two {@code cmid} on loopback; node 1 homes a segment nobody writes;
 * this process imports it through node 2. Each round, both threads meet at a spinning
 * rendezvous and load one word of a line never read before (every third line, so that no
 * read-ahead fills it first); the program prints the p50 and p90 of the later thread's time
 * (from the rendezvous to its value) and of the earlier's, against one thread missing alone in
 * the same run (the floor: a joined miss cannot be faster than the fill it joins).
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar \
 *     io.softcmi.benchmarks.cluster.JoinedMissBenchmark [ROUNDS]
 * </pre>
 */
public final class JoinedMissBenchmark {
    private static final int LINE = Integer.getInteger("softcmi.cache.lineSize", 1024);
    /** Lines between two rounds' lines: more than one, so that a miss never reads ahead into the next round's. */
    private static final int STRIDE = 3;

    private JoinedMissBenchmark() {
    }

    /**
     * Entry point.
     *
     * @param args ROUNDS per phase (default 3000): untimed pairs, timed pairs, timed single misses
     * @throws Exception if the cluster cannot be set up
     */
    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3000;
        long phaseBytes = (long) rounds * STRIDE * LINE;
        long size = 3 * phaseBytes;
        Path dir = Files.createTempDirectory("softcmi-joined-bench-");
        List<Process> children = new ArrayList<>();
        ExecutorService home = Executors.newSingleThreadExecutor();
        ExecutorService threads = Executors.newSingleThreadExecutor(); // makes the context
        ExecutorService second = Executors.newSingleThreadExecutor(); // joins it (iniTh)
        try {
            ClusterBench.startTwoDaemons(dir, children, "jbench");
            CmiContext a = home.submit(ClusterBench.context(dir.resolve("n1"))).get();
            CmiContext b = threads.submit(ClusterBench.context(dir.resolve("n2"))).get();
            byte[][] handles = home.submit(() -> {
                CmiSegment s = a.segGet(size, Set.of());
                RemoteSegmentHandle h = a.segExp(s, Set.of());
                CmiToken t = a.tokNew(s, b.nodeAddress(), EnumSet.allOf(Access.class));
                return new byte[][] {h.toBytes(), t.toBytes()};
            }).get();
            CmiMapping m = threads.submit(() -> {
                CmiSegment p = b.segImp(RemoteSegmentHandle.fromBytes(handles[0]));
                b.segSetToken(p, CmiToken.fromBytes(handles[1]));
                b.ctlCacheRsegSet(p, size);
                return b.segAt(p, Set.of());
            }).get();
            second.submit(b::iniTh).get();
            Pair pair = new Pair(b, m, rounds);
            pair.run(threads, second, 0); // untimed: compiles both threads' miss paths
            long[][] joined = pair.run(threads, second, phaseBytes);
            long[] alone = threads.submit(() -> single(b, m, rounds, 2 * phaseBytes)).get();
            print(joined, alone);
            second.submit(b::fini).get();
            threads.submit(b::fini).get();
            home.submit(a::fini).get();
        } finally {
            home.shutdownNow();
            threads.shutdownNow();
            second.shutdownNow();
            ClusterBench.stopAndDelete(children, dir);
        }
    }

    /** One thread missing a fresh line each round: the floor of a joined miss. */
    private static long[] single(CmiContext ctx, CmiMapping m, int rounds, long base) {
        ctx.enable(true);
        long[] t = new long[rounds];
        long sum = 0;
        for (int r = 0; r < rounds; r++) {
            long t0 = System.nanoTime();
            sum += m.getLong(base + (long) r * STRIDE * LINE);
            t[r] = System.nanoTime() - t0;
        }
        if (sum != 0) {
            throw new IllegalStateException("nobody writes the segment, yet a load returned " + sum);
        }
        return t;
    }

    /** Two threads of one context that miss the same line each round. */
    private static final class Pair {
        private final CmiContext ctx;
        private final CmiMapping m;
        private final int rounds;
        private final AtomicInteger arrived = new AtomicInteger();

        Pair(CmiContext ctx, CmiMapping m, int rounds) {
            this.ctx = ctx;
            this.m = m;
            this.rounds = rounds;
        }

        /** @return per round, each thread's time from the rendezvous to its value */
        long[][] run(ExecutorService first, ExecutorService second, long base) throws Exception {
            arrived.set(0);
            long[][] t = new long[2][rounds];
            List<Future<?>> done = new ArrayList<>();
            done.add(first.submit(() -> loop(base, t[0])));
            done.add(second.submit(() -> loop(base, t[1])));
            for (Future<?> f : done) {
                f.get(10, TimeUnit.MINUTES);
            }
            return t;
        }

        private void loop(long base, long[] times) {
            ctx.enable(true);
            long sum = 0;
            for (int r = 0; r < rounds; r++) {
                arrived.incrementAndGet();
                long bound = System.nanoTime() + 10_000_000_000L;
                while (arrived.get() < 2 * (r + 1)) {
                    if (System.nanoTime() > bound) {
                        throw new IllegalStateException("the other thread did not arrive in round " + r);
                    }
                    Thread.onSpinWait();
                }
                long t0 = System.nanoTime();
                sum += m.getLong(base + (long) r * STRIDE * LINE);
                times[r] = System.nanoTime() - t0;
            }
            if (sum != 0) {
                throw new IllegalStateException("nobody writes the segment, yet a load returned " + sum);
            }
        }
    }

    private static void print(long[][] joined, long[] alone) {
        int n = alone.length;
        long[] later = new long[n];
        long[] earlier = new long[n];
        for (int r = 0; r < n; r++) {
            later[r] = Math.max(joined[0][r], joined[1][r]);
            earlier[r] = Math.min(joined[0][r], joined[1][r]);
        }
        Arrays.sort(later);
        Arrays.sort(earlier);
        long[] single = alone.clone();
        Arrays.sort(single);
        System.out.printf(Locale.ROOT, "two threads of one context missing the same line, %d rounds, line %d B%n", n, LINE);
        System.out.printf(Locale.ROOT, "later thread:   p50 %.1f µs, p90 %.1f µs%n", us(later, 0.5), us(later, 0.9));
        System.out.printf(Locale.ROOT, "earlier thread: p50 %.1f µs, p90 %.1f µs%n", us(earlier, 0.5), us(earlier, 0.9));
        System.out.printf(Locale.ROOT, "one thread alone (the floor): p50 %.1f µs, p90 %.1f µs%n", us(single, 0.5),
            us(single, 0.9));
        System.out.printf(Locale.ROOT, "later thread p50 / alone p50: %.2fx%n", us(later, 0.5) / us(single, 0.5));
    }

    private static double us(long[] sorted, double q) {
        return sorted[Math.min(sorted.length - 1, (int) (q * sorted.length))] / 1000.0;
    }
}
