package io.softcmi.samples;

import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The Jacobi sample in process mode (docs/cache.md "The Jacobi sample"): real {@code cmid}
 * daemons and one JVM per worker ({@link JacobiWorker}), each with its own context, in one of
 * three {@linkplain Layout layouts}. The launcher ({@link JacobiCluster}) starts the daemons, the workers (rendezvous
 * through files in a private temporary directory), waits for them (bounded), compares their
 * bands bit for bit with a given sequential result, and stops and deletes everything it made.
 */
public final class JacobiProcesses {
    /** The longest a run may take, in ms (property {@code jacobi.runTimeoutMs}). */
    static final long RUN_TIMEOUT_MS = Long.getLong("jacobi.runTimeoutMs", 600_000);

    private JacobiProcesses() {
    }

    /** Where the workers run. */
    public enum Layout {
        /** One worker process on one daemon: every access is local. */
        ONE_PROCESS(1, 1, "1 process on 1 node"),
        /** Two worker processes on one daemon: each attaches the other's band by id (shared memory, no cache). */
        TWO_PROCESSES_ONE_NODE(1, 2, "2 processes on 1 node"),
        /** Two worker processes on two daemons: each reads the other's edge row through a cached import. */
        TWO_DAEMONS(2, 2, "2 processes on 2 daemons");

        private final int daemons;
        private final int workers;
        private final String description;

        Layout(int daemons, int workers, String description) {
            this.daemons = daemons;
            this.workers = workers;
            this.description = description;
        }

        /** @return the number of {@code cmid} daemons */
        public int daemons() {
            return daemons;
        }

        /** @return the number of worker processes (worker {@code r} runs on daemon {@code r % daemons}) */
        public int workers() {
            return workers;
        }

        /** @return a short description */
        public String description() {
            return description;
        }
    }

    /**
     * What a run gave.
     *
     * @param layout where the workers ran
     * @param seconds the slowest worker's time for the iterations (start barrier to last barrier)
     * @param mismatches cells that differ from the sequential result (0 when bit-for-bit equal)
     * @param maxDiff the largest difference from the sequential result
     * @param cacheCounters each worker's cache counters ({@code CacheStats}), in rank order
     * @param phases each worker's time reading neighbours' rows, at the barrier and computing, in rank order
     */
    public record Outcome(Layout layout, double seconds, long mismatches, double maxDiff, List<String> cacheCounters,
            List<String> phases) {
    }

    /**
     * Runs the stencil with the workers of {@code layout} in their own processes.
     *
     * @param n grid size
     * @param iterations iterations
     * @param layout daemons and workers
     * @param expected the sequential result ({@link JacobiStencil#sequential(int, int)})
     * @return times, the comparison and the counters
     * @throws UncheckedIOException if a process cannot be started or fails (the message quotes its output and log)
     */
    public static Outcome run(int n, int iterations, Layout layout, double[][] expected) {
        return run(n, iterations, layout, expected, List.of());
    }

    /**
     * Runs the stencil with the workers of {@code layout} in their own processes, with extra JVM
     * options for the workers (for example {@code -Djacobi.prefetch=false}).
     *
     * @param n grid size
     * @param iterations iterations
     * @param layout daemons and workers
     * @param expected the sequential result ({@link JacobiStencil#sequential(int, int)})
     * @param workerOptions JVM options of the worker processes
     * @return times, the comparison and the counters
     * @throws UncheckedIOException if a process cannot be started or fails (the message quotes its output and log)
     */
    public static Outcome run(int n, int iterations, Layout layout, double[][] expected, List<String> workerOptions) {
        try (JacobiCluster cluster = JacobiCluster.start(layout)) {
            return cluster.run(n, iterations, expected, workerOptions);
        }
    }

    /**
     * The sequential kernel's run that every configuration is compared with.
     *
     * @param grid the result ({@link JacobiStencil#sequential(int, int)})
     * @param seconds its wall-clock time
     * @param cpuSeconds the CPU time of the thread that ran it
     */
    public record Sequential(double[][] grid, double seconds, double cpuSeconds) {
    }

    /**
     * An extra row of the comparison table (a baseline measured in the same run, such as the
     * benchmark's raw parallel floors).
     *
     * @param name what was run
     * @param seconds its time
     * @param result how its result compares with the sequential one ("exact", or what differs)
     */
    public record Row(String name, double seconds, String result) {
    }

    /**
     * Runs and times the sequential kernel, in this thread, after {@code jacobi.warmup} untimed
     * iterations of it ({@link JacobiWorker#WARMUP_PROPERTY}, default none).
     *
     * @param n grid size
     * @param iterations iterations
     * @return the result and its times
     */
    public static Sequential sequential(int n, int iterations) {
        return sequential(n, iterations, JacobiWorker.warmupIterations());
    }

    /**
     * Runs and times the sequential kernel, in this thread, after {@code warmup} untimed
     * iterations of it (none for 0: a later run of a benchmark whose kernel is compiled).
     *
     * @param n grid size
     * @param iterations iterations
     * @param warmup untimed iterations first
     * @return the result and its times
     */
    public static Sequential sequential(int n, int iterations, int warmup) {
        if (warmup > 0) {
            JacobiStencil.sequential(n, warmup); // untimed, as each worker's (JacobiWorker.WARMUP_PROPERTY)
        }
        var threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long t0 = System.nanoTime();
        long cpu0 = threads.getCurrentThreadCpuTime();
        double[][] grid = JacobiStencil.sequential(n, iterations);
        double seconds = (System.nanoTime() - t0) / 1e9;
        return new Sequential(grid, seconds, (threads.getCurrentThreadCpuTime() - cpu0) / 1e9);
    }

    /**
     * Runs the sequential kernel and then each layout, and prints times, ratios and counters.
     *
     * @param n grid size
     * @param iterations iterations
     * @param layouts the layouts to run
     * @param out where to print
     * @return the outcomes, in order
     */
    public static List<Outcome> compare(int n, int iterations, List<Layout> layouts, PrintStream out) {
        return compare(sequential(n, iterations), n, iterations, List.of(), layouts, out);
    }

    /**
     * Runs each layout and prints times, ratios to the given sequential run (and the given extra
     * rows, after the sequential one) and counters.
     *
     * @param sequential the sequential run of the same {@code n} and {@code iterations}
     * @param n grid size
     * @param iterations iterations
     * @param extraRows rows printed after the sequential one, with their ratio to it
     * @param layouts the layouts to run
     * @param out where to print
     * @return the outcomes, in order
     */
    public static List<Outcome> compare(Sequential sequential, int n, int iterations, List<Row> extraRows,
            List<Layout> layouts, PrintStream out) {
        double seq = sequential.seconds();
        out.printf(Locale.ROOT, "jacobi N=%d, %d iterations, %d untimed warm-up iterations of the sequential kernel and"
            + " of each worker (sequential: %.3f s of CPU; on a busy machine compare it with each worker's computing CPU"
            + " below)%n", n, iterations, JacobiWorker.warmupIterations(), sequential.cpuSeconds());
        out.printf(Locale.ROOT, "%-40s %9s %8s  %s%n", "configuration", "time s", "ratio", "result");
        out.printf(Locale.ROOT, "%-40s %9.3f %8.2f  %s%n", "sequential Java", seq, 1.0, "reference");
        for (Row r : extraRows) {
            out.printf(Locale.ROOT, "%-40s %9.3f %8.2f  %s%n", r.name(), r.seconds(), r.seconds() / seq, r.result());
        }
        List<Outcome> outcomes = new ArrayList<>();
        for (Layout l : layouts) {
            Outcome o = run(n, iterations, l, sequential.grid());
            outcomes.add(o);
            out.printf(Locale.ROOT, "%-40s %9.3f %8.2f  %s%n", l.description(), o.seconds(), o.seconds() / seq,
                o.mismatches() == 0 ? "exact" : o.mismatches() + " cells differ, max " + o.maxDiff());
        }
        for (Outcome o : outcomes) {
            for (int r = 0; r < o.cacheCounters().size(); r++) {
                out.printf(Locale.ROOT, "%s, worker %d: %s%n  cache counters %s%n", o.layout().description(), r,
                    o.phases().get(r), o.cacheCounters().get(r));
            }
        }
        return outcomes;
    }

    /**
     * Runs the three layouts against the sequential kernel.
     *
     * @param args N and iterations (defaults 2048 and 100)
     */
    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 2048;
        int iterations = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        List<Outcome> outcomes = compare(n, iterations, List.of(Layout.values()), System.out);
        if (outcomes.stream().anyMatch(o -> o.mismatches() != 0)) {
            throw new IllegalStateException("a distributed result differs from the sequential one");
        }
    }
}
