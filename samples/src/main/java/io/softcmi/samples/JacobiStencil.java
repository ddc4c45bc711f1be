package io.softcmi.samples;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.CmiVersion;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.RemoteSegmentHandle;
import io.softcmi.node.NodeConfig;
import io.softcmi.node.NodeDaemon;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A 5-point Jacobi stencil over an N x N grid of doubles whose rows live in CMI segments (issue
 * 7): P workers, each with its own node (a daemon in this JVM) and context, own a band of rows
 * homed on their node, in two grids swapped each iteration. A worker reads its neighbours'
 * edge rows (the halo) through cached imports of their segments; between iterations the
 * workers meet at a barrier built from {@code atm_cas} on a counter homed at worker 0, which is
 * also the release (their new rows are written back) and the acquire (the old halo lines are
 * dropped). The result is compared, bit for bit, with a sequential run of the same kernel.
 *
 * <p>Boundary cells are fixed: the top row is 1.0, everything else starts at 0.
 */
public final class JacobiStencil {
    private JacobiStencil() {
    }

    /** What a run gave. @param maxDiff largest difference from the sequential run (0 when exact) */
    public record Result(double seconds, double sequentialSeconds, double maxDiff, double checksum) {
    }

    /**
     * Runs the stencil on {@code workers} nodes and sequentially.
     *
     * @param n grid size
     * @param iterations iterations
     * @param workers bands (nodes), each at least 1 row
     * @param out where to print
     * @return times and the comparison
     */
    public static Result run(int n, int iterations, int workers, PrintStream out) {
        List<NodeDaemon> nodes = new ArrayList<>();
        List<ExecutorService> threads = new ArrayList<>();
        Path dir = null;
        try {
            dir = SampleDirs.privateTempDir("softcmi-jacobi-");
            Path key = SampleDirs.newClusterKey(dir);
            CmiContext[] ctx = new CmiContext[workers];
            for (int i = 0; i < workers; i++) {
                NodeDaemon d = NodeDaemon.start(new NodeConfig().directory(dir.resolve("node" + i)).name("jacobi" + i)
                    .listen("127.0.0.1", 0).clusterKeyFile(key).shmDirectory(Path.of("/dev/shm",
                        "softcmi-jacobi-" + ProcessHandle.current().pid() + "-" + i)));
                nodes.add(d);
                threads.add(Executors.newSingleThreadExecutor());
                Path nodeDir = d.config().directory();
                ctx[i] = get(threads.get(i).submit(() -> {
                    synchronized (JacobiStencil.class) {
                        System.setProperty("softcmi.node", nodeDir.toString());
                        try {
                            CmiContext c = Cmi.init(new CmiVersion(1, 1));
                            c.enable(true);
                            return c;
                        } finally {
                            System.clearProperty("softcmi.node");
                        }
                    }
                }));
            }
            Band[] bands = new Band[workers];
            for (int p = 0; p < workers; p++) {
                int first = p * n / workers;
                int last = (p + 1) * n / workers;
                CmiContext c = ctx[p];
                int pp = p;
                bands[p] = get(threads.get(p).submit(() -> Band.create(c, first, last, n)));
            }
            for (int p = 0; p < workers; p++) {
                CmiContext c = ctx[p];
                Band me = bands[p];
                Band up = p > 0 ? bands[p - 1] : null;
                Band down = p < workers - 1 ? bands[p + 1] : null;
                Band zero = bands[0];
                me.owner = zero;
                me.neighbourFirstUp = up == null ? 0 : up.first;
                me.neighbourLastDown = down == null ? 0 : down.last;
                get(threads.get(p).submit(() -> {
                    me.up = up == null ? null : up.importInto(c);
                    me.down = down == null ? null : down.importInto(c);
                    me.barrier = me == zero ? zero.local : zero.importInto(c);
                    return null;
                }));
            }
            long t0 = System.nanoTime();
            List<Future<Void>> done = new ArrayList<>();
            for (int p = 0; p < workers; p++) {
                CmiContext c = ctx[p];
                Band b = bands[p];
                done.add(threads.get(p).submit(() -> {
                    b.iterate(c, iterations, workers);
                    return null;
                }));
            }
            for (Future<Void> f : done) {
                get(f);
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            double[][] grid = new double[n][];
            for (int p = 0; p < workers; p++) {
                Band b = bands[p];
                get(threads.get(p).submit(() -> {
                    b.copyOut(grid, iterations & 1);
                    return null;
                }));
            }
            t0 = System.nanoTime();
            double[][] seq = sequential(n, iterations);
            double seqSeconds = (System.nanoTime() - t0) / 1e9;
            double maxDiff = 0;
            double sum = 0;
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    maxDiff = Math.max(maxDiff, Math.abs(grid[i][j] - seq[i][j]));
                    sum += grid[i][j];
                }
            }
            out.printf(java.util.Locale.ROOT, "jacobi N=%d, %d iterations, %d node(s): %.3f s; sequential Java %.3f s;"
                + " max difference %.3g; checksum %.6f%n", n, iterations, workers, seconds, seqSeconds, maxDiff, sum);
            for (int i = 0; i < workers; i++) {
                CmiContext c = ctx[i];
                get(threads.get(i).submit(() -> {
                    c.fini();
                    return null;
                }));
            }
            return new Result(seconds, seqSeconds, maxDiff, sum);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            threads.forEach(ExecutorService::shutdownNow);
            nodes.forEach(NodeDaemon::close);
            SampleDirs.deleteQuietly(dir);
        }
    }

    /** One worker's rows {@code [first, last)} of both grids, and its views of its neighbours. */
    private static final class Band {
        final int first;
        final int last;
        final int n;
        final CmiSegment segment;
        final CmiMapping local;
        final byte[] handle;
        final byte[] token;
        Band owner;
        CmiMapping up;
        CmiMapping down;
        CmiMapping barrier;
        /** Byte offset of the barrier counter (in worker 0's segment, after its grids). */
        final long barrierOffset;

        private Band(int first, int last, int n, CmiSegment segment, CmiMapping local, byte[] handle, byte[] token) {
            this.first = first;
            this.last = last;
            this.n = n;
            this.segment = segment;
            this.local = local;
            this.handle = handle;
            this.token = token;
            this.barrierOffset = 2L * (last - first) * n * 8;
        }

        static Band create(CmiContext c, int first, int last, int n) {
            long size = (2L * (last - first) * n * 8 + 8 + 4095) / 4096 * 4096; // whole pages, with room for the barrier counter
            CmiSegment s = c.segGet(size, Set.of());
            CmiMapping m = c.segAt(s, Set.of());
            if (first == 0) { // the fixed top row, in both grids
                double[] row = new double[n];
                java.util.Arrays.fill(row, 1.0);
                for (int g = 0; g < 2; g++) {
                    m.put((long) g * (last - first) * n * 8, MemorySegment.ofArray(row));
                }
            }
            RemoteSegmentHandle h = c.segExp(s, Set.of());
            CmiToken t = c.tokNew(s, NodeAddress.ANY, EnumSet.allOf(Access.class));
            return new Band(first, last, n, s, m, h.toBytes(), t.toBytes());
        }

        CmiMapping importInto(CmiContext c) {
            CmiSegment proxy = c.segImp(RemoteSegmentHandle.fromBytes(handle));
            c.segSetToken(proxy, CmiToken.fromBytes(token));
            return c.segAt(proxy, Set.of());
        }

        private long at(int grid, int row) {
            return ((long) grid * (last - first) + (row - first)) * n * 8;
        }

        /** Reads global row {@code row} of {@code grid} into {@code dst}, from this band or a neighbour's. */
        private void row(int grid, int row, double[] dst) {
            MemorySegment d = MemorySegment.ofArray(dst);
            if (row < first) {
                up.get(((long) grid * (first - neighbourFirstUp) + (row - neighbourFirstUp)) * n * 8, d);
            } else if (row >= last) {
                down.get(((long) grid * (neighbourLastDown - last) + (row - last)) * n * 8, d);
            } else {
                local.get(at(grid, row), d);
            }
        }

        int neighbourFirstUp;
        int neighbourLastDown;

        void iterate(CmiContext c, int iterations, int workers) {
            double[] above = new double[n];
            double[] here = new double[n];
            double[] below = new double[n];
            double[] out = new double[n];
            for (int it = 0; it < iterations; it++) {
                int src = it & 1;
                int dst = src ^ 1;
                for (int i = Math.max(first, 1); i < Math.min(last, n - 1); i++) {
                    row(src, i - 1, above);
                    row(src, i, here);
                    row(src, i + 1, below);
                    kernelRow(above, here, below, out);
                    local.put(at(dst, i), MemorySegment.ofArray(out));
                }
                barrier(c, (long) workers * (it + 1));
            }
        }

        /** Arrives with atm_cas (a release, then an acquire) and waits for everyone. */
        private void barrier(CmiContext c, long target) {
            long seen = 0;
            long was;
            while ((was = c.atmCas(barrier, owner.barrierOffset, seen, seen + 1)) != seen) {
                seen = was;
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (barrier.getLong(owner.barrierOffset) < target) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("barrier timeout");
                }
                c.rmb(); // drops the cached counter line, which atm_cas writes at the home
            }
        }

        void copyOut(double[][] grid, int which) {
            for (int i = first; i < last; i++) {
                grid[i] = new double[n];
                local.get(at(which, i), MemorySegment.ofArray(grid[i]));
            }
        }
    }

    /**
     * The same kernel on Java arrays, in one thread.
     *
     * @param n grid size
     * @param iterations iterations
     * @return the grid after {@code iterations}
     */
    public static double[][] sequential(int n, int iterations) {
        double[][] a = new double[n][n];
        double[][] b = new double[n][n];
        java.util.Arrays.fill(a[0], 1.0);
        java.util.Arrays.fill(b[0], 1.0);
        for (int it = 0; it < iterations; it++) {
            double[][] src = (it & 1) == 0 ? a : b;
            double[][] dst = (it & 1) == 0 ? b : a;
            for (int i = 1; i < n - 1; i++) {
                kernelRow(src[i - 1], src[i], src[i + 1], dst[i]);
            }
        }
        return (iterations & 1) == 0 ? a : b;
    }

    /**
     * The kernel, for one row: each inner cell becomes the mean of its four neighbours; the first
     * and last cells (the fixed boundary) are copied. Each cell of {@code here} is loaded once and
     * its value carried to the next two cells in locals (the same sums in the same order as
     * {@code above[j] + below[j] + here[j - 1] + here[j + 1]}, so the result is the same to the
     * bit): 3% less CPU on arrays, and on a memory segment, where every load is checked, about
     * 15% less (docs/cache.md, "The Jacobi sample").
     *
     * @param above the row above, in the source grid
     * @param here the row, in the source grid
     * @param below the row below, in the source grid
     * @param out the row in the destination grid
     */
    public static void kernelRow(double[] above, double[] here, double[] below, double[] out) {
        int n = here.length;
        if (n < 2) {
            System.arraycopy(here, 0, out, 0, n);
            return;
        }
        double left = here[0];
        double mid = here[1];
        out[0] = left;
        for (int j = 1; j < n - 1; j++) {
            double right = here[j + 1];
            out[j] = 0.25 * (above[j] + below[j] + left + right);
            left = mid;
            mid = right;
        }
        out[n - 1] = mid;
    }

    private static final ValueLayout.OfDouble CELL = ValueLayout.JAVA_DOUBLE;

    /**
     * {@link #kernelRow(double[], double[], double[], double[])} on rows of {@code n} doubles of
     * one memory segment (a worker's direct view of its band, docs/direct.md), with the same
     * arithmetic in the same order, so the result is bit-identical. Rows are given as the index
     * of their first double. All rows are in one segment on purpose: the JIT then compiles one
     * shape of the loop (a kernel that saw two kinds of segment ran many times slower while it
     * warmed up). Like the array kernel, it loads each cell of the row once.
     *
     * @param grid the segment
     * @param above first double of the row above (source grid)
     * @param here first double of the row (source grid)
     * @param below first double of the row below (source grid)
     * @param out first double of the row in the destination grid
     * @param n cells per row
     */
    static void kernelRow(MemorySegment grid, long above, long here, long below, long out, int n) {
        if (n < 2) {
            MemorySegment.copy(grid, CELL, here * Double.BYTES, grid, CELL, out * Double.BYTES, n);
            return;
        }
        double left = grid.getAtIndex(CELL, here);
        double mid = grid.getAtIndex(CELL, here + 1);
        grid.setAtIndex(CELL, out, left);
        for (int j = 1; j < n - 1; j++) {
            double right = grid.getAtIndex(CELL, here + j + 1);
            grid.setAtIndex(CELL, out + j, 0.25 * (grid.getAtIndex(CELL, above + j) + grid.getAtIndex(CELL, below + j)
                + left + right));
            left = mid;
            mid = right;
        }
        grid.setAtIndex(CELL, out + n - 1, mid);
    }

    /**
     * Runs the sample.
     *
     * @param args N, iterations, workers (defaults 256, 50, 2)
     */
    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 256;
        int iterations = args.length > 1 ? Integer.parseInt(args[1]) : 50;
        int workers = args.length > 2 ? Integer.parseInt(args[2]) : 2;
        Result r = run(n, iterations, workers, System.out);
        if (r.maxDiff() != 0) {
            throw new IllegalStateException("the distributed result differs from the sequential one by " + r.maxDiff());
        }
    }

    private static <T> T get(Future<T> f) {
        try {
            return f.get(300, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("a worker did not finish in time", e);
        }
    }
}
