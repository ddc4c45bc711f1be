package io.softcmi.benchmarks.cluster;

import io.softcmi.samples.JacobiBands;
import io.softcmi.samples.JacobiStencil;
import io.softcmi.samples.JacobiWorker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * The machine's own limit for the Jacobi benchmark's two-worker shape, measured in the same run
 * (docs/benchmarks.md, "The machine's floors for Jacobi and VMMC latency"): the sample's kernel
 * ({@link JacobiStencil#kernelRow(double[], double[], double[], double[])}) and row split
 * ({@link JacobiWorker#first}) with no softcmi at all, as
 * <ul>
 * <li>{@link Kind#THREADS}: two threads of this JVM on shared Java arrays, meeting at a
 *     {@link CyclicBarrier} after each iteration (the local, raw-memory limit);</li>
 * <li>{@link Kind#TCP_BLOCKING} and {@link Kind#TCP_POLLING}: two plain JVM processes
 *     ({@link RawJacobiPeer}) that exchange their edge rows over a loopback TCP connection before
 *     each iteration, reading with blocking or with polling (non-blocking) sockets (the raw TCP
 *     limit).</li>
 * </ul>
 * Each floor's time runs from its start barrier to the end of the last iteration (for processes,
 * the slower one's; JVM start and the result check are not counted), and its grid is compared
 * bit for bit with the sequential one.
 */
public final class RawJacobiFloor {
    /** The longest a floor may take, in ms. */
    private static final long TIMEOUT_MS = 600_000;
    private static final int WORKERS = 2;

    private RawJacobiFloor() {
    }

    /** The floors. */
    public enum Kind {
        /** Two threads in one JVM, a {@code java.util.concurrent} barrier per iteration. */
        THREADS("raw floor: 2 threads, arrays, barrier"),
        /** Two processes, the edge rows exchanged over loopback TCP, blocking reads. */
        TCP_BLOCKING("raw floor: 2 processes, TCP, blocking"),
        /** Two processes, the edge rows exchanged over loopback TCP, polling reads. */
        TCP_POLLING("raw floor: 2 processes, TCP, polling");

        private final String description;

        Kind(String description) {
            this.description = description;
        }

        /** @return a short description, as printed */
        public String description() {
            return description;
        }
    }

    /**
     * What a floor gave.
     *
     * @param kind which floor
     * @param seconds the time of the iterations (the slower worker's)
     * @param mismatches cells that differ from the expected grid (0 when bit-for-bit equal)
     * @param cpuSeconds each worker's CPU time over the iterations (its computing thread), in rank order
     */
    public record Outcome(Kind kind, double seconds, long mismatches, double[] cpuSeconds) {
        /** @return "exact", or how many cells differ, and each worker's CPU time */
        public String result() {
            StringBuilder b = new StringBuilder(mismatches == 0 ? "exact" : mismatches + " cells differ");
            b.append("; CPU per worker");
            for (double c : cpuSeconds) {
                b.append(String.format(java.util.Locale.ROOT, " %.3f s", c));
            }
            return b.toString();
        }
    }

    /**
     * Runs one floor and compares its grid with {@code expected}.
     *
     * @param kind which floor
     * @param n grid size (at least 4)
     * @param iterations iterations
     * @param expected the sequential result of the same {@code n} and {@code iterations}
     * @return its time and the comparison
     * @throws IOException if a process cannot be started, fails or does not end in time (it is then stopped)
     */
    public static Outcome run(Kind kind, int n, int iterations, double[][] expected) throws IOException {
        if (n < 4) {
            throw new IllegalArgumentException("N must be at least 4, not " + n);
        }
        return switch (kind) {
            case THREADS -> threads(n, iterations, expected);
            case TCP_BLOCKING -> processes(n, iterations, false, expected);
            case TCP_POLLING -> processes(n, iterations, true, expected);
        };
    }

    private static Outcome threads(int n, int iterations, double[][] expected) throws IOException {
        double[][] a = new double[n][n];
        double[][] b = new double[n][n];
        Arrays.fill(a[0], 1.0);
        Arrays.fill(b[0], 1.0);
        CyclicBarrier barrier = new CyclicBarrier(WORKERS);
        long[] ends = new long[WORKERS];
        long[] starts = new long[WORKERS];
        double[] cpu = new double[WORKERS];
        var mx = java.lang.management.ManagementFactory.getThreadMXBean();
        Throwable[] failure = new Throwable[1];
        List<Thread> threads = new ArrayList<>();
        for (int r = 0; r < WORKERS; r++) {
            int rank = r;
            threads.add(Thread.ofPlatform().name("jacobi-floor-" + r).start(() -> {
                try {
                    int from = Math.max(JacobiWorker.first(rank, WORKERS, n), 1);
                    int to = Math.min(JacobiWorker.first(rank + 1, WORKERS, n), n - 1);
                    barrier.await(TIMEOUT_MS, TimeUnit.MILLISECONDS); // start together
                    starts[rank] = System.nanoTime();
                    long cpu0 = mx.getCurrentThreadCpuTime();
                    for (int it = 0; it < iterations; it++) {
                        double[][] src = (it & 1) == 0 ? a : b;
                        double[][] dst = (it & 1) == 0 ? b : a;
                        for (int i = from; i < to; i++) {
                            JacobiStencil.kernelRow(src[i - 1], src[i], src[i + 1], dst[i]);
                        }
                        barrier.await(TIMEOUT_MS, TimeUnit.MILLISECONDS);
                    }
                    ends[rank] = System.nanoTime();
                    cpu[rank] = (mx.getCurrentThreadCpuTime() - cpu0) / 1e9;
                } catch (InterruptedException | BrokenBarrierException | TimeoutException | RuntimeException e) {
                    synchronized (failure) {
                        failure[0] = e;
                    }
                    barrier.reset(); // the other thread leaves its wait
                }
            }));
        }
        try {
            for (Thread t : threads) {
                if (!t.join(java.time.Duration.ofMillis(TIMEOUT_MS))) {
                    threads.forEach(Thread::interrupt);
                    throw new IOException("the threads of the floor did not end in " + TIMEOUT_MS + " ms");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        synchronized (failure) {
            if (failure[0] != null) {
                throw new IOException("a thread of the floor failed", failure[0]);
            }
        }
        double seconds = (Math.max(ends[0], ends[1]) - Math.min(starts[0], starts[1])) / 1e9;
        double[][] grid = (iterations & 1) == 0 ? a : b;
        long mismatches = 0;
        for (int r = 0; r < WORKERS; r++) {
            for (int i = JacobiWorker.first(r, WORKERS, n); i < JacobiWorker.first(r + 1, WORKERS, n); i++) {
                mismatches += JacobiBands.compareRow(grid[i], expected[i]).mismatches();
            }
        }
        return new Outcome(Kind.THREADS, seconds, mismatches, cpu);
    }

    private static Outcome processes(int n, int iterations, boolean poll, double[][] expected) throws IOException {
        Path dir = Files.createTempDirectory("softcmi-jacobi-floor-");
        List<Process> children = new ArrayList<>();
        try {
            String mode = poll ? "poll" : "block";
            Process zero = start(dir, 0, n, iterations, mode);
            children.add(zero);
            String port = awaitLine(zero, dir, 0, "PORT ").substring(5).trim();
            children.add(start(dir, 1, n, iterations, mode, port));
            double seconds = 0;
            double[] cpu = new double[WORKERS];
            for (int r = 0; r < WORKERS; r++) {
                Process p = children.get(r);
                if (!p.waitFor(TIMEOUT_MS, TimeUnit.MILLISECONDS) || p.exitValue() != 0) {
                    throw new IOException("floor process " + r + " failed or did not end: " + describe(dir, r));
                }
                seconds = Math.max(seconds, Double.parseDouble(awaitLine(p, dir, r, "TIME ").substring(5).trim()));
                cpu[r] = Double.parseDouble(awaitLine(p, dir, r, "CPU ").substring(4).trim());
            }
            long mismatches = JacobiBands.compareFiles(dir, WORKERS, n, expected).mismatches();
            return new Outcome(poll ? Kind.TCP_POLLING : Kind.TCP_BLOCKING, seconds, mismatches, cpu);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } finally {
            for (Process p : children) {
                p.destroyForcibly();
            }
            for (Process p : children) {
                try {
                    p.waitFor(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    /** Starts a {@link RawJacobiPeer}, its output and errors going to files in {@code dir}. */
    private static Process start(Path dir, int rank, int n, int iterations, String... modeAndPort) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp", System.getProperty("java.class.path"), RawJacobiPeer.class.getName(), dir.toString(),
            Integer.toString(rank), Integer.toString(n), Integer.toString(iterations)));
        cmd.addAll(List.of(modeAndPort));
        return new ProcessBuilder(cmd).redirectOutput(dir.resolve("out-" + rank + ".txt").toFile())
            .redirectError(dir.resolve("err-" + rank + ".txt").toFile()).start();
    }

    /** Waits (at most 60 s) for a line of a child's output that starts with {@code prefix}. */
    private static String awaitLine(Process p, Path dir, int rank, String prefix) throws IOException, InterruptedException {
        Path out = dir.resolve("out-" + rank + ".txt");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            boolean ended = !p.isAlive();
            for (String l : Files.readAllLines(out, StandardCharsets.UTF_8)) {
                if (l.startsWith(prefix)) {
                    return l;
                }
            }
            if (ended || System.nanoTime() - deadline > 0) {
                throw new IOException("floor process " + rank + " printed no " + prefix.trim() + ": " + describe(dir, rank));
            }
            Thread.sleep(5);
        }
    }

    private static String describe(Path dir, int rank) {
        try {
            return "output " + Files.readString(dir.resolve("out-" + rank + ".txt")) + "; errors "
                + Files.readString(dir.resolve("err-" + rank + ".txt"));
        } catch (IOException e) {
            return "(no output: " + e.getMessage() + ")";
        }
    }
}
