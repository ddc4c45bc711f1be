package io.softcmi.benchmarks.cluster;

import io.softcmi.samples.JacobiCluster;
import io.softcmi.samples.JacobiProcesses;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

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
 *      io.softcmi.benchmarks.cluster.JacobiBenchmark [N] [ITERATIONS] [LAYOUT...] [--rounds K]
 * </pre>
 * N defaults to 2048, ITERATIONS to 100, the layouts ({@code ONE_PROCESS},
 * {@code TWO_PROCESSES_ONE_NODE}, {@code TWO_DAEMONS}) to all three.
 *
 * <p>{@code --rounds K} (default 1) measures K - 1 more rounds after the first, each a sequential
 * run, every floor and every layout, in alternating order (the sequential run first in odd rounds, last in
 * even ones; the sequential kernel is compiled by then and gets no more warm-up), prints each
 * round's times and ratios, and at the end the median and range of each one's ratio to the
 * sequential run of its own round ({@link RoundRatios}). The sequential time on these machines
 * moves by a quarter either way from one minute to the next, so a ratio to a sequential run taken minutes
 * earlier says less than the median of ratios taken round by round.
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
 *
 * <p>With the two-daemon layout it also times <b>kept daemons</b> ({@link JacobiCluster}): two
 * daemons started once, which serve a first, untimed run of the workers and then every round's
 * run, as daemons run as a service have served programs before (each run's workers are new
 * processes, with the same warm-up). The two-daemon layout itself starts new daemons for every
 * run, so its figure includes the daemons' JIT warm-up (docs/benchmarks.md, "Jacobi: the daemons
 * still compile after 2000 warm-up iterations"). The kept daemons stay up, idle, while the
 * other configurations of the later rounds run. {@code -Dbench.jacobiKeptDaemons=false} leaves
 * the kept daemons out.
 */
public final class JacobiBenchmark {
    /** Whether to time the two-daemon layout on daemons kept up across runs as well (default true). */
    static final String KEPT_DAEMONS_PROPERTY = "bench.jacobiKeptDaemons";
    private static final String KEPT_NAME = "2 processes on 2 kept daemons";

    private JacobiBenchmark() {
    }

    /**
     * Entry point.
     *
     * @param args N, ITERATIONS, then optionally layouts
     * @throws IllegalStateException if a distributed result or a floor's differs from the sequential one
     * @throws java.io.IOException if a floor's process fails
     */
    public static void main(String[] args) throws IOException {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 2048;
        int iterations = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        List<JacobiProcesses.Layout> layouts = new ArrayList<>();
        int rounds = 1;
        for (int i = 2; i < args.length; i++) {
            if (args[i].equals("--rounds")) {
                rounds = rounds(args, ++i);
            } else {
                layouts.add(JacobiProcesses.Layout.valueOf(args[i]));
            }
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
        boolean keep = layouts.contains(JacobiProcesses.Layout.TWO_DAEMONS)
            && Boolean.parseBoolean(System.getProperty(KEPT_DAEMONS_PROPERTY, "true"));
        try (JacobiCluster kept = keep ? JacobiCluster.start(JacobiProcesses.Layout.TWO_DAEMONS) : null) {
            Timing keptRun = kept == null ? null : keptRun(n, iterations, kept, sequential.grid());
            double keptFirst = 0;
            if (kept != null) {
                double warm = keptRun.seconds();
                keptFirst = keptRun.seconds();
                System.out.printf(Locale.ROOT, "%-40s %9.3f %8.2f  exact (the daemons' first run, untimed in the ratios:"
                    + " %.3f s)%n", KEPT_NAME, keptFirst, keptFirst / sequential.seconds(), warm);
            }
            if (rounds > 1) {
                laterRounds(n, iterations, layouts, sequential, rounds, floors, outcomes, keptRun, keptFirst);
            }
        }
    }

    /**
     * Rounds 2 to {@code rounds} of every floor, layout and (when given) the kept daemons' run,
     * with the first round's times from {@code floors} (row 0 is the second sequential run),
     * {@code outcomes} and {@code keptFirst}.
     */
    private static void laterRounds(int n, int iterations, List<JacobiProcesses.Layout> layouts,
            JacobiProcesses.Sequential sequential, int rounds, List<JacobiProcesses.Row> floors,
            List<JacobiProcesses.Outcome> outcomes, Timing keptRun, double keptFirst) throws IOException {
        List<Timed> timed = new ArrayList<>();
        List<Double> firstSeconds = new ArrayList<>();
        List<RawJacobiFloor.Kind> kinds = floors();
        for (int k = 0; k < kinds.size(); k++) {
            timed.add(new Timed(kinds.get(k).description(), floorRun(n, iterations, kinds.get(k), sequential.grid())));
            firstSeconds.add(floors.get(k + 1).seconds()); // row 0 is the second sequential run
        }
        for (int l = 0; l < layouts.size(); l++) {
            timed.add(new Timed(layouts.get(l).description(), layoutRun(n, iterations, layouts.get(l),
                sequential.grid())));
            firstSeconds.add(outcomes.get(l).seconds());
        }
        if (keptRun != null) {
            timed.add(new Timed(KEPT_NAME, keptRun));
            firstSeconds.add(keptFirst);
        }
        moreRounds(n, iterations, timed, firstSeconds, sequential, rounds);
    }

    /** One configuration timed in every round: a floor or a layout. */
    private record Timed(String name, Timing timing) {
    }

    /** Runs a configuration once. */
    @FunctionalInterface
    private interface Timing {
        /**
         * @return its seconds
         * @throws IllegalStateException if its result differs from the sequential one
         */
        double seconds() throws IOException;
    }

    /**
     * Rounds 2 to {@code rounds}: a sequential run and each configuration (the floors, then the
     * layouts), alternating which goes first, each round's times and ratios printed, then each
     * configuration's median over all rounds (the first included: {@code firstSeconds}).
     *
     * @throws IllegalStateException if a result differs from the first sequential run's
     */
    private static void moreRounds(int n, int iterations, List<Timed> timed, List<Double> firstSeconds,
            JacobiProcesses.Sequential sequential, int rounds) throws IOException {
        List<RoundRatios> ratios = new ArrayList<>();
        for (int c = 0; c < timed.size(); c++) {
            ratios.add(new RoundRatios("time, " + timed.get(c).name() + " / sequential Java"));
            ratios.get(c).add(firstSeconds.get(c) / sequential.seconds());
        }
        for (int r = 2; r <= rounds; r++) {
            boolean sequentialFirst = r % 2 == 1;
            double seq = sequentialFirst ? timedSequential(n, iterations, sequential) : 0;
            double[] seconds = new double[timed.size()];
            for (int c = 0; c < timed.size(); c++) {
                seconds[c] = timed.get(c).timing().seconds();
            }
            if (!sequentialFirst) {
                seq = timedSequential(n, iterations, sequential);
            }
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "round %d (sequential run %s): sequential %.3f s",
                r, sequentialFirst ? "first" : "last", seq));
            for (int c = 0; c < timed.size(); c++) {
                ratios.get(c).add(seconds[c] / seq);
                line.append(String.format(Locale.ROOT, "; %s %.3f s (%.2f)", timed.get(c).name(), seconds[c],
                    seconds[c] / seq));
            }
            System.out.println(line);
        }
        for (RoundRatios r : ratios) {
            System.out.println(r.summary());
        }
    }

    /** @return a layout's run (new daemons each time), its worker phases printed, failing if its result differs */
    private static Timing layoutRun(int n, int iterations, JacobiProcesses.Layout layout, double[][] expected) {
        return () -> checkedSeconds(layout.description(), JacobiProcesses.run(n, iterations, layout, expected));
    }

    /** @return a run of the workers on the kept daemons, its worker phases printed, failing if its result differs */
    private static Timing keptRun(int n, int iterations, JacobiCluster cluster, double[][] expected) {
        return () -> checkedSeconds(KEPT_NAME, cluster.run(n, iterations, expected, List.of()));
    }

    /**
     * Prints a run's worker phases under {@code name}.
     *
     * @return its seconds
     * @throws IllegalStateException if its result differs from the sequential one
     */
    private static double checkedSeconds(String name, JacobiProcesses.Outcome o) {
        if (o.mismatches() != 0) {
            throw new IllegalStateException(name + ": " + o.mismatches() + " cells differ from the sequential result");
        }
        for (String phases : o.phases()) {
            System.out.println("  " + name + ": " + phases);
        }
        return o.seconds();
    }

    /** @return a floor's run, failing if its result differs */
    private static Timing floorRun(int n, int iterations, RawJacobiFloor.Kind kind, double[][] expected) {
        return () -> {
            RawJacobiFloor.Outcome f = RawJacobiFloor.run(kind, n, iterations, expected);
            if (f.mismatches() != 0) {
                throw new IllegalStateException(kind.description() + ": " + f.result());
            }
            return f.seconds();
        };
    }

    /**
     * @return the seconds of one more sequential run (the kernel is compiled by now: no warm-up)
     * @throws IllegalStateException if its result differs from {@code reference}'s
     */
    private static double timedSequential(int n, int iterations, JacobiProcesses.Sequential reference) {
        JacobiProcesses.Sequential again = JacobiProcesses.sequential(n, iterations, 0);
        if (!Arrays.deepEquals(again.grid(), reference.grid())) {
            throw new IllegalStateException("a later sequential run differs from the first");
        }
        return again.seconds();
    }

    private static int rounds(String[] args, int at) {
        if (at >= args.length) {
            throw new IllegalArgumentException("--rounds needs a count");
        }
        return RoundRatios.count(args[at]);
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
