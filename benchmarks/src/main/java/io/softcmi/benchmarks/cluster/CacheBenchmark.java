package io.softcmi.benchmarks.cluster;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.CmiVersion;
import io.softcmi.cmi.RemoteSegmentHandle;
import io.softcmi.cmi.internal.cache.CacheStats;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
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

/**
 * Whole-cluster benchmark of cached imports (docs/cache.md, docs/benchmarks.md): two
 * {@code cmid} on loopback; node 1 homes a 4 MiB segment and keeps a writable attach of it (so
 * every acquire at node 2 invalidates every cached line: each read after {@code rmb} is a miss);
 * this process imports it through node 2 and measures, in the same run:
 * <ul>
 *   <li>re-reading a cached 1 MiB working set with {@code getLong}, against the same loop over a
 *       local {@code MemorySegment} (ns per 8-byte read);</li>
 *   <li>a read miss (one line, timed alone, right after an {@code rmb}, whose {@code ACQUIRE}
 *       reply the miss waits for (docs/cache.md "Acquire points"), after at least
 *       {@link #MISS_WARM_UP} untimed ones) against a raw polling TCP ping-pong with a 72-byte
 *       request and a reply of 24 bytes plus one line, and against the same ping-pong with both
 *       ends blocking in {@code read}; with the time of the {@code rmb} before each miss, the CPU
 *       time of the missing thread per miss and of the raw blocking client per round trip
 *       (where a miss's time goes: docs/cache.md);</li>
 *   <li>writing back a dirty 1 MiB at {@code wmb} against a raw TCP stream of 1 MiB chunks and
 *       against one raw 1 MiB chunk sent right after each round (best and median of 20 rounds,
 *       after 1,000 untimed ones), with the CPU time of the thread in {@code wmb} and of the raw
 *       stream's sender per MiB;</li>
 * </ul>
 * and prints the process's cache counters. Then the re-read again with each loop in a method of its
 * own (compiled whole, where the first figures come from loops OSR-compiled inside one large
 * method), beside the same loop over the home's own attach of the segment (a local
 * {@code CmiMapping}, whose every {@code getLong} makes its checks too) and the re-read as one bulk
 * {@code get} of the 1 MiB per pass into a local buffer summed by the local loop, and last {@code rmb}
 * followed by compute and a hit on a second, 64 KiB segment that nobody writes
 * ({@link #acquireThenHit}), and {@code rmb} followed by a bulk {@code get} of a 16 KiB row whose
 * lines the acquire drops, as a halo row is read after a barrier ({@link #acquireThenRowRead}).
 * The line size is
 * {@code -Dsoftcmi.cache.lineSize}.
 * The background write-back is off unless {@code -Dsoftcmi.cache.writeBackMs} is given, so that
 * the timed {@code wmb} writes the whole dirty megabyte.
 *
 * <pre>
 * java -Dsoftcmi.cache.lineSize=1024 -cp benchmarks/target/benchmarks.jar io.softcmi.benchmarks.cluster.CacheBenchmark [MISSES]
 * </pre>
 */
public final class CacheBenchmark {
    private static final int MIB = 1 << 20;
    /** Timed write-back rounds per variant. */
    private static final int WRITE_BACK_ROUNDS = 20;
    /**
     * Untimed write-back rounds before them, to compile both ends' write-back paths
     * ({@code -Dbench.cache.writeBackWarmUp=N}, default 1000): after the 50 of before
     * 2026-11-23 18:00 UTC the thread in {@code wmb} still used two to three times the CPU it
     * uses once warm (docs/cache.md "Where a write-back's CPU goes").
     */
    private static final int WRITE_BACK_WARM_UP = Integer.getInteger("bench.cache.writeBackWarmUp", 1000);
    /**
     * Untimed read misses at least, before the timed ones ({@code -Dbench.cache.missWarmUp=N}):
     * the miss path spans many methods at both ends, and with only MISSES / 2 of them (2,500)
     * most timed misses ran before the JIT's last tier had compiled it.
     */
    private static final int MISS_WARM_UP = Integer.getInteger("bench.cache.missWarmUp", 20_000);
    /** CPU time of the raw stream's sending thread per 1 MiB chunk, in its last run. */
    private static final long[] RAW_STREAM_CPU = new long[1];
    /** CPU time of the raw blocking client's thread over its timed round trips. */
    private static final long[] RAW_BLOCKING_CPU = new long[1];

    private CacheBenchmark() {
    }

    /**
     * Entry point.
     *
     * @param args MISSES (default 5000)
     * @throws Exception if the cluster cannot be set up
     */
    public static void main(String[] args) throws Exception {
        // The background writer (every 2 ms by default) would write most of the dirty megabyte
        // back while the loop stores it, leaving the timed wmb little to do: turn it off here,
        // before the cache classes load, unless the command line sets it.
        if (System.getProperty("softcmi.cache.writeBackMs") == null) {
            System.setProperty("softcmi.cache.writeBackMs", "3600000");
        }
        int misses = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
        int line = Integer.getInteger("softcmi.cache.lineSize", 1024);
        Path dir = Files.createTempDirectory("softcmi-cache-bench-");
        List<Process> children = new ArrayList<>();
        ExecutorService home = Executors.newSingleThreadExecutor();
        ExecutorService remote = Executors.newSingleThreadExecutor();
        try {
            ClusterBench.startTwoDaemons(dir, children, "cbench");
            CmiContext a = home.submit(ClusterBench.context(dir.resolve("n1"))).get();
            CmiContext b = remote.submit(ClusterBench.context(dir.resolve("n2"))).get();
            CmiMapping[] homeAttach = new CmiMapping[1];
            byte[][] handles = home.submit(() -> {
                CmiSegment s = a.segGet(4L * MIB, Set.of());
                // A home-local writable attach: every acquire elsewhere invalidates all lines.
                homeAttach[0] = a.segAt(s, Set.of());
                RemoteSegmentHandle h = a.segExp(s, Set.of());
                CmiToken t = a.tokNew(s, b.nodeAddress(), EnumSet.allOf(Access.class));
                // A segment nobody writes (no attach at the home): an acquire drops none of its lines.
                CmiSegment quiet = a.segGet(64 * 1024, Set.of());
                RemoteSegmentHandle qh = a.segExp(quiet, Set.of());
                CmiToken qt = a.tokNew(quiet, b.nodeAddress(), EnumSet.allOf(Access.class));
                return new byte[][] {h.toBytes(), t.toBytes(), qh.toBytes(), qt.toBytes()};
            }).get();
            String report = remote.submit(() -> {
                CmiSegment p = b.segImp(RemoteSegmentHandle.fromBytes(handles[0]));
                b.segSetToken(p, CmiToken.fromBytes(handles[1]));
                b.enable(true);
                CmiMapping m = b.segAt(p, Set.of());
                CmiSegment q = b.segImp(RemoteSegmentHandle.fromBytes(handles[2]));
                b.segSetToken(q, CmiToken.fromBytes(handles[3]));
                CmiMapping quiet = b.segAt(q, Set.of()); // nothing cached until the last part: no ACQUIRE for it before
                return measure(b, m, line, misses, children) + acquireThenHit(b, quiet, misses)
                    + acquireThenRowRead(b, m, misses);
            }).get();
            System.out.println(report);
            double localMapping = home.submit(() -> {
                a.enable(true); // the home's attach is a CmiMapping too: its loads check cmi_enb
                return bestOf(OWN_METHOD_ROUNDS, () -> sumLocalMapping(homeAttach[0]));
            }).get();
            System.out.println(String.format(Locale.ROOT, "re-read, each loop in a method of its own: local CmiMapping getLong"
                + " (the home's own attach, same segment): %.2f ns; cached/local CmiMapping %.1fx%n",
                localMapping, OWN_METHOD_CACHED[0] / localMapping));
            remote.submit(b::fini).get();
            home.submit(a::fini).get();
        } finally {
            home.shutdownNow();
            remote.shutdownNow();
            ClusterBench.stopAndDelete(children, dir);
        }
    }

    private static String measure(CmiContext ctx, CmiMapping m, int line, int misses, List<Process> children)
            throws Exception {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%ncached imports, 2 daemons on loopback, line %d B%n", line));
        // 1. Cached re-read of 1 MiB against local.
        MemorySegment local = Arena.ofAuto().allocate(MIB, 8);
        long t0 = System.nanoTime();
        long sum = 0;
        for (long off = 0; off < MIB; off += 8) {
            sum += m.getLong(off); // cold: the misses fill the cache
        }
        double coldMs = (System.nanoTime() - t0) / 1e6;
        double cached = Double.MAX_VALUE;
        double localNs = Double.MAX_VALUE;
        for (int round = 0; round < 30; round++) {
            t0 = System.nanoTime();
            for (long off = 0; off < MIB; off += 8) {
                sum += m.getLong(off);
            }
            cached = Math.min(cached, (System.nanoTime() - t0) / (MIB / 8.0));
            t0 = System.nanoTime();
            for (long off = 0; off < MIB; off += 8) {
                sum += local.get(ValueLayout.JAVA_LONG, off);
            }
            localNs = Math.min(localNs, (System.nanoTime() - t0) / (MIB / 8.0));
        }
        out.append(String.format(Locale.ROOT, "first read of 1 MiB (misses, read-ahead): %.2f ms%n", coldMs));
        out.append(String.format(Locale.ROOT, "re-read of cached 1 MiB: %.2f ns/getLong; local MemorySegment: %.2f ns; ratio %.1fx"
            + " (best of 30 rounds)%n", cached, localNs, cached / localNs));
        // 2. Read miss after rmb against a raw ping-pong carrying one line.
        long[] raw = rawPingPong(misses, 72, 24 + line, children);
        long[] rawBlocking = rawBlockingPingPong(misses, 72, 24 + line, children);
        java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
        // Untimed misses first (MISS_WARM_UP), so that both ends' miss paths are compiled; both
        // runs are calls of one method (RmbMisses.run), so the timed one runs the compiled loop.
        int warm = Math.max(misses / 2, MISS_WARM_UP);
        long[] switches = new long[2]; // voluntary context switches of this thread and of the home daemon, over the timed misses
        RmbMisses untimed = new RmbMisses(warm);
        sum += untimed.run(ctx, m, line, 0, cpu);
        switches[0] = -voluntarySwitches(Path.of("/proc/thread-self"));
        switches[1] = -voluntarySwitches(Path.of("/proc", Long.toString(children.get(0).pid())));
        RmbMisses timed = new RmbMisses(misses);
        sum += timed.run(ctx, m, line, warm, cpu);
        switches[0] += voluntarySwitches(Path.of("/proc/thread-self"));
        switches[1] += voluntarySwitches(Path.of("/proc", Long.toString(children.get(0).pid())));
        long[] miss = timed.miss;
        long[] acquire = timed.acquire;
        long[] both = new long[misses];
        for (int i = 0; i < misses; i++) {
            both[i] = acquire[i] + miss[i];
        }
        long missCpu = timed.cpuNanos;
        Arrays.sort(miss);
        out.append(String.format(Locale.ROOT, "raw TCP ping-pong 72/%d B: p50 %.1f us, p99 %.1f us%n", 24 + line,
            ChildProcesses.pct(raw, 50) / 1e3, ChildProcesses.pct(raw, 99) / 1e3));
        out.append(String.format(Locale.ROOT, "raw TCP ping-pong 72/%d B, both ends blocking in read: p50 %.1f us, p99 %.1f us%n",
            24 + line, ChildProcesses.pct(rawBlocking, 50) / 1e3, ChildProcesses.pct(rawBlocking, 99) / 1e3));
        out.append(String.format(Locale.ROOT, "read miss (one line after rmb, after %d untimed): p50 %.1f us, p99 %.1f us; p50/raw %.2f"
            + " (p50/raw blocking %.2f)%n", warm, ChildProcesses.pct(miss, 50) / 1e3, ChildProcesses.pct(miss, 99) / 1e3,
            (double) ChildProcesses.pct(miss, 50) / ChildProcesses.pct(raw, 50),
            (double) ChildProcesses.pct(miss, 50) / ChildProcesses.pct(rawBlocking, 50)));
        Arrays.sort(acquire);
        Arrays.sort(both);
        out.append(String.format(Locale.ROOT, "the rmb before each miss (it queues the ACQUIRE, which the miss sends and waits for):"
            + " p50 %.1f us; rmb and miss together: p50 %.1f us, %.2f x raw%n", ChildProcesses.pct(acquire, 50) / 1e3, ChildProcesses.pct(both, 50) / 1e3,
            (double) ChildProcesses.pct(both, 50) / ChildProcesses.pct(raw, 50)));
        out.append(String.format(Locale.ROOT, "CPU time of the missing thread per miss: %.1f us (mean); of the raw blocking"
            + " client per round trip: %.1f us%n", missCpu / 1e3 / misses, RAW_BLOCKING_CPU[0] / 1e3 / misses));
        out.append(String.format(Locale.ROOT, "voluntary context switches per rmb and miss: the missing thread %.2f, the home daemon"
            + " (all threads) %.2f%n", (double) switches[0] / misses, (double) switches[1] / misses));
        sum += WarmReadMiss.measure(ctx, m, line, misses, children, out);
        // 3. Write-back of a dirty 1 MiB at wmb against the raw stream.
        double stream = Math.max(rawStream(64, children), rawStream(64, children));
        out.append(String.format(Locale.ROOT, "raw TCP stream 1 MiB chunks: %.0f MiB/s (sender's CPU time per MiB %.0f us)%n",
            stream, RAW_STREAM_CPU[0] / 1e3));
        // One raw 1 MiB chunk after each write-back round, on a connection kept open: the two are
        // timed in the same milliseconds, so their ratio is not the machine's swing between the
        // stream above and the rounds (the stream ranged over 1,900-4,700 MiB/s between runs).
        try (SocketChannel sink = connect(ClusterBench.port(children, "sink", Integer.toString(MIB)))) {
            sink.configureBlocking(true);
            ByteBuffer chunk = ByteBuffer.allocateDirect(MIB);
            ByteBuffer ack = ByteBuffer.allocateDirect(1);
            for (boolean everyByte : new boolean[] {true, false}) {
                double[] rates = new double[WRITE_BACK_ROUNDS];
                double[] rawRates = new double[WRITE_BACK_ROUNDS];
                long[] wmbCpu = new long[WRITE_BACK_ROUNDS];
                // Untimed rounds first: the store loop, the cache's write-back and the home's DIFF
                // path are compiled by then (twenty cold rounds measured mostly the interpreter).
                for (int round = 1 - WRITE_BACK_WARM_UP; round <= WRITE_BACK_ROUNDS; round++) {
                    for (long off = 0; off < MIB; off += 8) {
                        // every byte changes (alternating bit patterns), or only the low bytes of each word
                        long v = everyByte ? ((round & 1) == 0 ? 0x5555555555555555L : 0xAAAAAAAAAAAAAAAAL) : round * 7919L + off;
                        m.putLong(2L * MIB + off, v);
                    }
                    long c0 = cpu.getCurrentThreadCpuTime();
                    long s = System.nanoTime();
                    ctx.wmb();
                    long e = System.nanoTime();
                    long c1 = cpu.getCurrentThreadCpuTime();
                    long r0 = System.nanoTime();
                    RawTcpPeer.exchange(sink, chunk, ack); // the sink answers one byte per chunk
                    long r1 = System.nanoTime();
                    if (round >= 1) {
                        rates[round - 1] = 1e9 / (e - s);
                        wmbCpu[round - 1] = c1 - c0;
                        rawRates[round - 1] = 1e9 / (r1 - r0);
                    }
                }
                Arrays.sort(rates);
                Arrays.sort(rawRates);
                double best = rates[rates.length - 1];
                double median = rates[rates.length / 2];
                out.append(String.format(Locale.ROOT,
                    "write-back of dirty 1 MiB at wmb, %s: %.0f MiB/s (best of %d after %d untimed; median %.0f), %.0f%% of raw%n",
                    everyByte ? "every byte changed" : "low bytes of each word changed", best, WRITE_BACK_ROUNDS,
                    WRITE_BACK_WARM_UP, median, 100 * best / stream));
                double rawBest = rawRates[rawRates.length - 1];
                double rawMedian = rawRates[rawRates.length / 2];
                out.append(String.format(Locale.ROOT, "  a raw 1 MiB chunk after each round: best %.0f MiB/s, median %.0f;"
                    + " write-back best %.0f%% and median %.0f%% of these%n", rawBest, rawMedian, 100 * best / rawBest,
                    100 * median / rawMedian));
                Arrays.sort(wmbCpu);
                out.append(String.format(Locale.ROOT, "  CPU time of the thread in wmb: median %.0f us (wall time of the median round %.0f us)%n",
                    wmbCpu[wmbCpu.length / 2] / 1e3, 1e6 / median));
            }
        }
        out.append("cache counters: ").append(CacheStats.process()).append('\n');
        // 4. The re-read again, each loop compiled as a method of its own rather than OSR-compiled
        // inside this one (after the counters above, so they stay comparable with older runs).
        sum += sumMapping(m); // the acquires of the miss loop dropped the lines: fill them again
        double cachedOwn = bestOf(OWN_METHOD_ROUNDS, () -> sumMapping(m));
        double localOwn = bestOf(OWN_METHOD_ROUNDS, () -> sumSegment(local));
        OWN_METHOD_CACHED[0] = cachedOwn;
        out.append(String.format(Locale.ROOT, "re-read, each loop in a method of its own: cached %.2f ns/getLong; local"
            + " MemorySegment %.2f ns; ratio %.1fx (best of %d rounds)%n", cachedOwn, localOwn, cachedOwn / localOwn,
            OWN_METHOD_ROUNDS));
        // 5. The re-read as one bulk get per pass into a buffer of the reader's, then the local loop
        // over the buffer: the cache's checks once per line instead of once per 8 bytes.
        MemorySegment copy = Arena.ofAuto().allocate(MIB, 8);
        double bulkOwn = bestOf(OWN_METHOD_ROUNDS, () -> sumBulk(m, copy));
        out.append(String.format(Locale.ROOT, "re-read by one bulk get of 1 MiB per pass, then the local loop over the copy:"
            + " %.2f ns per 8 bytes; local MemorySegment %.2f ns; ratio %.1fx (best of %d rounds)%n", bulkOwn, localOwn,
            bulkOwn / localOwn, OWN_METHOD_ROUNDS));
        out.append("(checksum ").append(sum).append(")\n");
        return out.toString();
    }

    /**
     * Voluntary context switches (a thread that blocked) of a thread ({@code /proc/thread-self})
     * or of every thread of a process ({@code /proc/PID}), from {@code status}; 0 where unreadable.
     */
    static long voluntarySwitches(Path proc) {
        try {
            if (!Files.isDirectory(proc.resolve("task")) || proc.endsWith("thread-self")) {
                return switchesOf(proc.resolve("status"));
            }
            long n = 0;
            try (var tasks = Files.list(proc.resolve("task"))) {
                for (Path t : (Iterable<Path>) tasks::iterator) {
                    n += switchesOf(t.resolve("status"));
                }
            }
            return n;
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
            return 0;
        }
    }

    private static long switchesOf(Path status) throws java.io.IOException {
        for (String l : Files.readAllLines(status)) {
            if (l.startsWith("voluntary_ctxt_switches:")) {
                return Long.parseLong(l.substring(l.indexOf(':') + 1).trim());
            }
        }
        return 0;
    }

    /** Compute between the {@code rmb} and the hit in {@link #acquireThenHit}, ns. */
    private static final long[] COMPUTE_NS = {0, 20_000};

    /**
     * {@code rmb}, then some compute (a spin on the clock), then a load that hits a line of a
     * segment nobody writes (the acquire drops nothing): the hit settles the acquire. Where
     * {@code rmb} writes the {@code ACQUIRE}, its round trip overlaps the compute; where the
     * {@code ACQUIRE} is only queued until the next access (docs/cache.md "Acquire points"), the
     * hit writes it and waits a whole round trip. Time from the {@code rmb} to the hit's value,
     * and of the hit alone.
     */
    private static String acquireThenHit(CmiContext ctx, CmiMapping quiet, int rounds) {
        StringBuilder out = new StringBuilder();
        long sum = quiet.getLong(0); // the one line cached: rmb acquires it from here on
        for (long compute : COMPUTE_NS) {
            int warm = rounds;
            long[] total = new long[rounds];
            long[] hit = new long[rounds];
            for (int i = 0; i < warm + rounds; i++) {
                long r = System.nanoTime();
                ctx.rmb();
                while (System.nanoTime() - r < compute) {
                    Thread.onSpinWait();
                }
                long h = System.nanoTime();
                sum += quiet.getLong(8);
                long e = System.nanoTime();
                if (i >= warm) {
                    total[i - warm] = e - r;
                    hit[i - warm] = e - h;
                }
            }
            Arrays.sort(total);
            Arrays.sort(hit);
            out.append(String.format(Locale.ROOT, "rmb, %d us of compute, a hit (line nobody writes; %d after %d untimed):"
                + " rmb to value p50 %.1f us, the hit alone p50 %.1f us%n", compute / 1000, rounds, warm,
                ChildProcesses.pct(total, 50) / 1e3, ChildProcesses.pct(hit, 50) / 1e3));
        }
        return out.append("(checksum ").append(sum).append(")\n").toString();
    }

    /** Bytes of the row {@link #acquireThenRowRead} reads: one row of the Jacobi benchmark's grid (2048 doubles). */
    private static final int ROW = 16 * 1024;

    /**
     * {@code rmb}, then a bulk {@code get} of a {@value #ROW}-byte row of cached lines that the
     * acquire drops (the home holds a writable attach): a halo row read right after a barrier.
     * The read sends its fills behind the {@code ACQUIRE} (docs/cache.md "Acquire points"), so
     * the two share a round trip. Time from the {@code rmb} to the row's bytes.
     */
    private static String acquireThenRowRead(CmiContext ctx, CmiMapping m, int rounds) {
        MemorySegment row = Arena.ofAuto().allocate(ROW, 8);
        long[] total = new long[rounds];
        for (int i = 0; i < 2 * rounds; i++) {
            long r = System.nanoTime();
            ctx.rmb();
            m.get(2L * MIB, row);
            long e = System.nanoTime();
            if (i >= rounds) {
                total[i - rounds] = e - r;
            }
        }
        Arrays.sort(total);
        return String.format(Locale.ROOT, "rmb, then a bulk get of a %d KiB row the acquire drops (%d after %d untimed): p50 %.1f us,"
            + " p99 %.1f us%n", ROW / 1024, rounds, rounds, ChildProcesses.pct(total, 50) / 1e3, ChildProcesses.pct(total, 99) / 1e3);
    }

    /**
     * Rounds of each loop in a method of its own, best taken: enough for the JIT's last tier to
     * compile each loop on a loaded machine (with 30, a round of 0.2 to 2 ms, some runs timed
     * code of a lower tier only).
     */
    private static final int OWN_METHOD_ROUNDS = 300;

    /** The cached re-read of the last run of {@link #measure}, each loop in its own method (ns per getLong). */
    private static final double[] OWN_METHOD_CACHED = new double[1];

    /** Best of {@code rounds} timings of {@code pass}, in ns per 8-byte read of 1 MiB. */
    private static double bestOf(int rounds, java.util.function.LongSupplier pass) {
        double best = Double.MAX_VALUE;
        for (int round = 0; round < rounds; round++) {
            long t0 = System.nanoTime();
            long sum = pass.getAsLong();
            best = Math.min(best, (System.nanoTime() - t0) / (MIB / 8.0));
            sink += sum;
        }
        return best;
    }

    /** Where {@link #bestOf} leaves the sums, so that no loop is optimised away. */
    private static volatile long sink;

    /** Sums 1 MiB through {@link CmiMapping#getLong}: the re-read loop, compiled as a method of its own. */
    private static long sumMapping(CmiMapping m) {
        long sum = 0;
        for (long off = 0; off < MIB; off += 8) {
            sum += m.getLong(off);
        }
        return sum;
    }

    /**
     * {@link #sumMapping} over the home's own attach: the same code with a call site of its own,
     * so that each loop's {@code getLong} sees one class.
     */
    private static long sumLocalMapping(CmiMapping m) {
        long sum = 0;
        for (long off = 0; off < MIB; off += 8) {
            sum += m.getLong(off);
        }
        return sum;
    }

    /** One bulk {@link CmiMapping#get(long, MemorySegment)} of 1 MiB into {@code copy}, then {@link #sumSegment} of it. */
    private static long sumBulk(CmiMapping m, MemorySegment copy) {
        m.get(0, copy);
        return sumSegment(copy);
    }

    /** The same loop over a local {@code MemorySegment}. */
    private static long sumSegment(MemorySegment s) {
        long sum = 0;
        for (long off = 0; off < MIB; off += 8) {
            sum += s.get(ValueLayout.JAVA_LONG, off);
        }
        return sum;
    }

    private static long[] rawPingPong(int ops, int request, int reply, List<Process> children) throws Exception {
        int port = ClusterBench.port(children, "echo", Integer.toString(request), Integer.toString(reply));
        try (SocketChannel ch = connect(port)) {
            ByteBuffer req = ByteBuffer.allocateDirect(request);
            ByteBuffer rep = ByteBuffer.allocateDirect(reply);
            long[] t = new long[ops];
            for (int i = 0; i < ops + ops / 2; i++) {
                long s = System.nanoTime();
                RawTcpPeer.pollRound(ch, req, rep);
                if (i >= ops / 2) {
                    t[i - ops / 2] = System.nanoTime() - s;
                }
            }
            Arrays.sort(t);
            return t;
        }
    }

    /**
     * The same ping-pong with both ends blocking in {@code read} (the {@code server} peer, a
     * blocking client socket): the raw cost of the two wake-ups that a waiter which does not
     * poll pays, for the breakdown of a miss in docs/cache.md.
     */
    private static long[] rawBlockingPingPong(int ops, int request, int reply, List<Process> children) throws Exception {
        int port = ClusterBench.port(children, "server", Integer.toString(request), Integer.toString(reply));
        try (SocketChannel ch = connect(port)) {
            ch.configureBlocking(true);
            ByteBuffer req = ByteBuffer.allocateDirect(request);
            ByteBuffer rep = ByteBuffer.allocateDirect(reply);
            long[] t = new long[ops];
            java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
            for (int i = 0; i < ops + ops / 2; i++) {
                long c0 = cpu.getCurrentThreadCpuTime();
                long s = System.nanoTime();
                RawTcpPeer.exchange(ch, req, rep);
                long e = System.nanoTime();
                if (i >= ops / 2) {
                    t[i - ops / 2] = e - s;
                    RAW_BLOCKING_CPU[0] += cpu.getCurrentThreadCpuTime() - c0;
                }
            }
            Arrays.sort(t);
            return t;
        }
    }

    private static double rawStream(int chunks, List<Process> children) throws Exception {
        int port = ClusterBench.port(children, "sink", Integer.toString(MIB));
        try (SocketChannel ch = connect(port)) {
            ch.configureBlocking(true);
            ByteBuffer chunk = ByteBuffer.allocateDirect(MIB);
            ByteBuffer ack = ByteBuffer.allocateDirect(1);
            java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
            long c0 = cpu.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            for (int i = 0; i < chunks; i++) {
                RawTcpPeer.exchange(ch, chunk, ack);
            }
            double rate = chunks * 1e3 / ((System.nanoTime() - t0) / 1e6) / 1.048576;
            RAW_STREAM_CPU[0] = (cpu.getCurrentThreadCpuTime() - c0) / chunks;
            return rate;
        }
    }

    static SocketChannel connect(int port) throws java.io.IOException {
        SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", port));
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        ch.configureBlocking(false);
        return ch;
    }
}
