package io.softcmi.benchmarks.cluster;

import io.softcmi.samples.JacobiProcesses;
import java.util.ArrayList;
import java.util.List;

/**
 * The Jacobi stencil as a whole-cluster benchmark (issue 7, docs/cache.md "The Jacobi sample"):
 * in one run, the sequential Java kernel, then the sample's worker processes
 * ({@code io.softcmi.samples.JacobiWorker}, one JVM and context each, on real {@code cmid}
 * daemons on loopback) as 1 process on 1 node, 2 processes on 1 node (each attaches the other's
 * band directly), and 2 processes on 2 daemons (each reads the other's edge row through a cached
 * import). For each it prints the slowest worker's time for the iterations (start barrier to
 * last barrier; process start, rendezvous and the result check are not counted), its ratio to
 * the sequential time, whether the result equals the sequential one bit for bit, and for each
 * worker its time reading the halo and at the barrier, and its cache counters
 * ({@code CacheStats}: misses, fills, write-backs, diffs, acquires, invalidations). The
 * benchmark's {@code softcmi.*} and {@code jacobi.*} system properties are passed on to the
 * daemons and workers (for example {@code -Dsoftcmi.cache.lineSize=16384} or
 * {@code -Djacobi.prefetch=false}).
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar \
 *      io.softcmi.benchmarks.cluster.JacobiBenchmark [N] [ITERATIONS] [LAYOUT...]
 * </pre>
 * N defaults to 2048, ITERATIONS to 100, the layouts ({@code ONE_PROCESS},
 * {@code TWO_PROCESSES_ONE_NODE}, {@code TWO_DAEMONS}) to all three.
 *
 * <p>Before the layouts, in the same run, it measures the machine's own limit for the two-worker
 * shape ({@link RawJacobiFloor}): the same kernel and row split with no softcmi, as two threads
 * on arrays with a barrier, and as two plain processes exchanging their edge rows over loopback
 * TCP (blocking, then polling). Each is printed with its time, its ratio to the sequential time
 * and its comparison with the sequential result, after a second sequential run in this JVM (the
 * thread floor runs with the kernel compiled; the worker and floor processes start cold, like the
 * first sequential run). {@code -Dbench.jacobiFloors=THREADS,TCP_POLLING}
 * runs only the floors named ({@link RawJacobiFloor.Kind}); {@code -Dbench.jacobiFloors=none} none.
 * {@code -Djacobi.warmup=N} (default 0) runs N untimed iterations of the sequential kernel before
 * each sequential run and of each worker before its timed iterations (docs/cache.md, "Warm-up");
 * the floors get none.
 */
public final class JacobiBenchmark {
    private JacobiBenchmark() {
    }

    /**
     * Entry point.
     *
     * @param args N, ITERATIONS, then optionally layouts
     * @throws IllegalStateException if a distributed result or a floor's differs from the sequential one
     * @throws java.io.IOException if a floor's process fails
     */
    public static void main(String[] args) throws java.io.IOException {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 2048;
        int iterations = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        List<JacobiProcesses.Layout> layouts = new ArrayList<>();
        for (int i = 2; i < args.length; i++) {
            layouts.add(JacobiProcesses.Layout.valueOf(args[i]));
        }
        if (layouts.isEmpty()) {
            layouts.addAll(List.of(JacobiProcesses.Layout.values()));
        }
        System.out.printf("%d cores, load average %s%n", Runtime.getRuntime().availableProcessors(), loadAverage());
        JacobiProcesses.Sequential sequential = JacobiProcesses.sequential(n, iterations);
        List<JacobiProcesses.Row> floors = new ArrayList<>();
        boolean floorsExact = true;
        if (!floors().isEmpty()) {
            // The thread floor runs in this JVM, whose kernel the first run compiled: a second
            // sequential run shows how much of the difference is the JIT's warm-up.
            JacobiProcesses.Sequential again = JacobiProcesses.sequential(n, iterations);
            floors.add(new JacobiProcesses.Row("sequential Java again (JIT warm)", again.seconds(),
                java.util.Arrays.deepEquals(again.grid(), sequential.grid()) ? "exact" : "differs"));
        }
        for (RawJacobiFloor.Kind k : floors()) {
            RawJacobiFloor.Outcome f = RawJacobiFloor.run(k, n, iterations, sequential.grid());
            floors.add(new JacobiProcesses.Row(k.description(), f.seconds(), f.result()));
            floorsExact &= f.mismatches() == 0;
        }
        List<JacobiProcesses.Outcome> outcomes = JacobiProcesses.compare(sequential, n, iterations, floors, layouts,
            System.out);
        if (!floorsExact || outcomes.stream().anyMatch(o -> o.mismatches() != 0)) {
            throw new IllegalStateException("a distributed result or a floor's differs from the sequential one");
        }
    }

    /** @return the floors named by {@code bench.jacobiFloors} (all by default, none for {@code none}) */
    private static List<RawJacobiFloor.Kind> floors() {
        String names = System.getProperty("bench.jacobiFloors", "").strip();
        if (names.isEmpty()) {
            return List.of(RawJacobiFloor.Kind.values());
        }
        if (names.equalsIgnoreCase("none")) {
            return List.of();
        }
        List<RawJacobiFloor.Kind> kinds = new ArrayList<>();
        for (String k : names.split(",")) {
            kinds.add(RawJacobiFloor.Kind.valueOf(k.strip().toUpperCase(java.util.Locale.ROOT)));
        }
        return kinds;
    }

    private static String loadAverage() {
        double l = java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        return l < 0 ? "unknown" : String.format(java.util.Locale.ROOT, "%.2f", l);
    }
}
