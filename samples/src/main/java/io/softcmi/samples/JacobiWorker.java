package io.softcmi.samples;

import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiVersion;
import io.softcmi.cmi.direct.DirectViews;
import io.softcmi.cmi.internal.cache.CacheStats;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * One worker process of the Jacobi sample in process mode ({@link JacobiProcesses}, docs/cache.md
 * "The Jacobi sample"): its own JVM and context on the node named by {@code SOFTCMI_NODE}, owning
 * rows {@code [rank * N / P, (rank + 1) * N / P)} of both grids in a segment homed on that node.
 * It reads its neighbours' edge rows (the halo) with one bulk {@code get} per row, from a cached
 * import when the neighbour is on another node and from the neighbour's segment attached by id
 * when it is on the same node; between iterations it meets the others at a {@link CasBarrier}
 * whose counter is homed at worker 0. Segments are found through {@link JacobiRendezvous} files.
 * It computes in place in its band, through the direct view of its local attach
 * ({@code DirectViews}, docs/direct.md).
 *
 * <p>Standard output: {@code TIME seconds} (the iterations, between the start barrier and the
 * last one), {@code PHASES ...} (how much of it went to reading neighbours' rows and to waiting
 * at the barrier; the computing thread's CPU and, on Linux, its time waiting for a core and its
 * time slices, {@link ThreadSchedStat}) and {@code CACHE {counters}} (this process's
 * {@link CacheStats}); the band after the last iteration goes to {@code DIR/result-RANK.bin}
 * (row-major doubles, native byte order).
 *
 * <pre>
 * SOFTCMI_NODE=NODE_DIR java --enable-native-access=ALL-UNNAMED -cp ... io.softcmi.samples.JacobiWorker DIR RANK P N ITERATIONS
 * </pre>
 */
public final class JacobiWorker {
    /** System property: the longest wait for another worker, in ms (rendezvous and each barrier round). */
    public static final String TIMEOUT_PROPERTY = "jacobi.timeoutMs";
    /**
     * System property: {@code true} (the default) reads the halo in a {@link HaloPrefetch} thread
     * while the interior is computed, when a neighbour is imported from another node, so that the
     * read miss (which waits for the neighbour's daemon to be scheduled) overlaps computation;
     * {@code false} has the computing thread read it.
     */
    public static final String PREFETCH_PROPERTY = "jacobi.prefetch";
    /**
     * System property: untimed warm-up iterations (default 0). Each worker runs them (halo reads,
     * barriers and all) before the timed start barrier, then sets both grids of its band back to
     * the initial state and meets the others again; the launcher ({@link JacobiProcesses#compare})
     * runs the same number of iterations of the sequential kernel, untimed, before it times it.
     * So the JIT compiles the kernels before the clock starts on both sides alike.
     */
    public static final String WARMUP_PROPERTY = "jacobi.warmup";
    private final CmiContext context;
    private final Path dir;
    private final int rank;
    private final int workers;
    private final int n;
    private final long timeoutMillis;
    private final Band me;
    private Band up;
    private Band down;
    private CasBarrier barrier;
    /**
     * This worker's band segment: the direct view of its local attach (docs/direct.md), where it
     * computes. After both grids it holds two halo rows, copies of the neighbours' edge rows, so
     * that the kernel reads one segment only.
     */
    private final MemorySegment band;
    /** The halo rows in {@link #band}: byte offsets of the row above the band and of the row below it. */
    private final long haloUp;
    private final long haloDown;
    /** Time spent reading the halo rows (in whichever thread), waiting for them in this thread, at the barrier. */
    private volatile long haloReadNanos;
    private long haloNanos;
    private long barrierNanos;
    /** CPU time of the computing thread over the iterations (all phases). */
    private long cpuNanos;
    /** What the scheduler did to the computing thread over the iterations ({@link ThreadSchedStat#NONE} where unknown). */
    private ThreadSchedStat sched = ThreadSchedStat.NONE;
    private static final java.lang.management.ThreadMXBean THREADS = java.lang.management.ManagementFactory.getThreadMXBean();

    private JacobiWorker(CmiContext context, Path dir, int rank, int workers, int n) {
        this.context = context;
        this.dir = dir;
        this.rank = rank;
        this.workers = workers;
        this.n = n;
        this.timeoutMillis = Long.getLong(TIMEOUT_PROPERTY, 120_000);
        int first = first(rank, workers, n);
        int last = first(rank + 1, workers, n);
        haloUp = 2L * (last - first) * n * 8;
        haloDown = haloUp + 8L * n;
        CmiMapping[] local = new CmiMapping[1];
        JacobiRendezvous d = JacobiRendezvous.create(context, segmentSize(last - first, n), false, local);
        me = new Band(local[0], first, last, n, false);
        band = DirectViews.view(local[0]);
        if (first == 0) { // the fixed top row, in both grids
            double[] ones = new double[n];
            Arrays.fill(ones, 1.0);
            me.write(0, 0, ones);
            me.write(1, 0, ones);
        }
        d.publish(dir, "band-" + rank);
    }

    /**
     * The row split of the sample: band {@code rank} of {@code workers} starts at
     * {@code rank * n / workers} (band {@code workers} "starts" at {@code n}).
     *
     * @param rank the band
     * @param workers the number of bands
     * @param n rows of the grid
     * @return the first row of band {@code rank}
     */
    public static int first(int rank, int workers, int n) {
        return (int) ((long) rank * n / workers);
    }

    /** @return bytes for both grids' rows and the two halo rows, in whole pages */
    private static long segmentSize(int rows, int n) {
        return Math.max(4096, ((2L * rows + 2) * n * 8 + 4095) / 4096 * 4096);
    }

    /** Makes (worker 0) or finds the barrier, and attaches the neighbours' bands. */
    private void connect() {
        CmiMapping counter;
        if (rank == 0) {
            CmiMapping[] m = new CmiMapping[1];
            JacobiRendezvous.create(context, 4096, true, m).publish(dir, "barrier");
            counter = m[0];
        } else {
            counter = JacobiRendezvous.await(dir, "barrier", timeoutMillis).attach(context);
        }
        // Each worker's wake segment, which the releaser of a barrier round writes (CasBarrier).
        CmiMapping[] wake = new CmiMapping[1];
        JacobiRendezvous.create(context, 4096, true, wake).publish(dir, "wake-" + rank);
        List<CmiMapping> others = new ArrayList<>();
        for (int q = 0; q < workers; q++) {
            if (q != rank) {
                others.add(JacobiRendezvous.await(dir, "wake-" + q, timeoutMillis).attach(context));
            }
        }
        barrier = new CasBarrier(context, counter, 0, workers, timeoutMillis, wake[0], others);
        if (rank > 0) {
            up = neighbour(JacobiRendezvous.await(dir, "band-" + (rank - 1), timeoutMillis), first(rank - 1, workers, n),
                me.first);
        }
        if (rank < workers - 1) {
            down = neighbour(JacobiRendezvous.await(dir, "band-" + (rank + 1), timeoutMillis), me.last,
                first(rank + 2, workers, n));
        }
    }

    private Band neighbour(JacobiRendezvous d, int first, int last) {
        return new Band(d.attach(context), first, last, n, !d.isLocal(context));
    }

    /**
     * Runs the iterations. Each one reads the halo rows (row {@code first - 1} of the band above,
     * row {@code last} of the band below) into {@link #haloUp} and {@link #haloDown} (unless
     * {@link #PREFETCH_PROPERTY} is false, when a neighbour is imported from another node, in the
     * {@link HaloPrefetch} thread while this one computes the rows that do not need them), then
     * computes the band's edge rows, and meets the others at the barrier.
     *
     * @return seconds from the start barrier to the end of the last iteration's barrier
     */
    private double iterate(int iterations) {
        boolean remote = (up != null && up.imported) || (down != null && down.imported);
        remote &= Boolean.parseBoolean(System.getProperty(PREFETCH_PROPERTY, "true"));
        try (HaloPrefetch prefetch = remote ? new HaloPrefetch(context, timeoutMillis) : null) {
            barrier.await(); // everyone attached
            int warmup = warmupIterations();
            if (warmup > 0) {
                loop(warmup, prefetch);
                reset();
                barrier.await(); // every band is back at the start before anyone reads a halo
            }
            haloReadNanos = 0;
            haloNanos = 0;
            barrierNanos = 0;
            barrier.stats.clear();
            long t0 = System.nanoTime();
            long cpu0 = THREADS.getCurrentThreadCpuTime();
            ThreadSchedStat sched0 = ThreadSchedStat.current();
            loop(iterations, prefetch);
            cpuNanos = THREADS.getCurrentThreadCpuTime() - cpu0;
            sched = ThreadSchedStat.current().since(sched0);
            return (System.nanoTime() - t0) / 1e9;
        }
    }

    /** @return the untimed warm-up iterations ({@link #WARMUP_PROPERTY}, default 0) */
    static int warmupIterations() {
        return Math.max(0, Integer.getInteger(WARMUP_PROPERTY, 0));
    }

    /** Sets both grids of this worker's band back to the start: zeros, and the fixed top row of ones. */
    private void reset() {
        band.asSlice(0, haloUp).fill((byte) 0);
        if (me.first == 0) {
            double[] ones = new double[n];
            Arrays.fill(ones, 1.0);
            me.write(0, 0, ones);
            me.write(1, 0, ones);
        }
    }

    /** Runs {@code iterations} iterations from grid 0, each ending at the barrier. */
    private void loop(int iterations, HaloPrefetch prefetch) {
        int lo = Math.max(me.first, 1);
        int hi = Math.min(me.last, n - 1);
        // Rows [a, b) need no halo; the edge rows first (after a band above) and last - 1 (before a band below) do.
        int a = up != null ? lo + 1 : lo;
        int b = down != null ? hi - 1 : hi;
        for (int it = 0; it < iterations; it++) {
            int src = it & 1;
            int dst = src ^ 1;
            if (prefetch != null) {
                prefetch.start(() -> readHalo(src));
            } else {
                long t = System.nanoTime();
                readHalo(src);
                haloNanos += System.nanoTime() - t;
            }
            if (a < b) {
                interior(src, dst, a, b);
            }
            if (prefetch != null) {
                long t = System.nanoTime();
                prefetch.await();
                haloNanos += System.nanoTime() - t;
            }
            if (up != null && me.first >= lo && me.first < hi) {
                edge(src, dst, me.first);
            }
            if (down != null && me.last - 1 >= lo && me.last - 1 < hi && (up == null || me.last - 1 != me.first)) {
                edge(src, dst, me.last - 1);
            }
            long t = System.nanoTime();
            barrier.await();
            barrierNanos += System.nanoTime() - t;
        }
    }

    /**
     * Computes rows {@code [a, b)}, whose neighbours are all in this band, in place in the band's
     * direct view: no row is copied.
     */
    private void interior(int src, int dst, int a, int b) {
        long from = me.offset(src, a) / 8;
        long to = me.offset(dst, a) / 8;
        for (int i = a; i < b; i++, from += n, to += n) {
            JacobiStencil.kernelRow(band, from - n, from, from + n, to, n);
        }
    }

    /** Computes row {@code i}, next to a neighbour's band (its halo row has been read). */
    private void edge(int src, int dst, int i) {
        JacobiStencil.kernelRow(band, row(src, i - 1), row(src, i), row(src, i + 1), me.offset(dst, i) / 8, n);
    }

    /** @return the index in {@link #band} of the first double of global row {@code row} of grid {@code src} (or its halo copy) */
    private long row(int src, int row) {
        return (row < me.first ? haloUp : row >= me.last ? haloDown : me.offset(src, row)) / 8;
    }

    /** Reads the neighbours' edge rows of grid {@code src}, one bulk {@code get} each. */
    private void readHalo(int src) {
        long t = System.nanoTime();
        if (up != null) {
            up.read(src, me.first - 1, band.asSlice(haloUp, 8L * n));
        }
        if (down != null) {
            down.read(src, me.last, band.asSlice(haloDown, 8L * n));
        }
        haloReadNanos += System.nanoTime() - t;
    }

    private void writeResult(int grid) throws IOException {
        int rows = me.last - me.first;
        ByteBuffer bytes = ByteBuffer.allocate(Math.toIntExact((long) rows * n * 8)).order(ByteOrder.nativeOrder());
        me.mapping.get(me.offset(grid, me.first), MemorySegment.ofBuffer(bytes));
        Path tmp = dir.resolve("result-" + rank + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            while (bytes.hasRemaining()) {
                ch.write(bytes);
            }
        }
        Files.move(tmp, dir.resolve("result-" + rank + ".bin"), StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * Runs one worker.
     *
     * @param args DIR (the rendezvous directory), RANK, P (workers), N, ITERATIONS
     * @throws IOException if the result cannot be written
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 5) {
            throw new IllegalArgumentException("usage: JacobiWorker DIR RANK P N ITERATIONS");
        }
        Path dir = Path.of(args[0]);
        int rank = Integer.parseInt(args[1]);
        int workers = Integer.parseInt(args[2]);
        int n = Integer.parseInt(args[3]);
        int iterations = Integer.parseInt(args[4]);
        if (n < 3 || workers < 1 || n / workers < 1 || rank < 0 || rank >= workers || iterations < 0) {
            throw new IllegalArgumentException("need N >= 3, 1 <= P <= N, 0 <= RANK < P, ITERATIONS >= 0");
        }
        CmiContext c = Cmi.init(new CmiVersion(1, 1));
        try {
            c.enable(true);
            JacobiWorker w = new JacobiWorker(c, dir, rank, workers, n);
            w.connect();
            double seconds = w.iterate(iterations);
            w.writeResult(iterations & 1);
            System.out.printf(Locale.ROOT, "TIME %.9f%n", seconds);
            System.out.printf(Locale.ROOT, "PHASES halo reads %.3f s (%.3f s not overlapped), barrier %.3f s,"
                + " computing %.3f s; CPU of the computing thread %.3f s, waiting for a core %.3f s, %d time slices;"
                + " barrier %s; after %d untimed warm-up iterations%n",
                w.haloReadNanos / 1e9, w.haloNanos / 1e9, w.barrierNanos / 1e9,
                seconds - (w.haloNanos + w.barrierNanos) / 1e9, w.cpuNanos / 1e9, w.sched.waitNanos() / 1e9,
                w.sched.slices(), w.barrier.stats.summary(), warmupIterations());
            // The counters are not part of the CMI API: the benchmark prints them per configuration.
            System.out.println("CACHE " + CacheStats.process());
            if (rank == 0) {
                w.barrier.awaitDepartures(workers - 1); // the others may still poll the counter homed here
            } else {
                w.barrier.depart();
            }
        } finally {
            c.fini();
        }
        System.out.println("DONE");
    }

    /**
     * Rows {@code [first, last)} of both grids in one segment (grid 0's rows, then grid 1's).
     *
     * @param imported whether the mapping is a (cached) import of another node's segment
     */
    private record Band(CmiMapping mapping, int first, int last, int n, boolean imported) {
        long offset(int grid, int row) {
            return ((long) grid * (last - first) + (row - first)) * n * 8;
        }

        /** Reads global row {@code row} of {@code grid} with one bulk get. */
        void read(int grid, int row, MemorySegment dst) {
            mapping.get(offset(grid, row), dst);
        }

        void write(int grid, int row, double[] src) {
            mapping.put(offset(grid, row), MemorySegment.ofArray(src));
        }
    }
}
