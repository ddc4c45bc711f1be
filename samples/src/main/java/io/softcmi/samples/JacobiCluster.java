package io.softcmi.samples;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * The {@code cmid} daemons of one Jacobi {@linkplain JacobiProcesses.Layout layout}, started once
 * and able to serve several runs of the workers, as daemons run as a service serve one program
 * after another (docs/cache.md, "The Jacobi sample"). Each {@link #run} starts the layout's
 * worker processes with a directory of their own for the rendezvous and the results, waits for
 * them (bounded), compares their bands with the sequential result and deletes that directory.
 * {@link #close} stops the daemons and deletes everything the cluster made; if this JVM is
 * stopped first, a shutdown hook stops the processes.
 */
public final class JacobiCluster implements AutoCloseable {
    private static final long START_TIMEOUT_MS = 60_000;
    private final JacobiProcesses.Layout layout;
    private final Path dir;
    private final List<Path> shm = new ArrayList<>();
    /** Every live process of the cluster, daemons first; guarded by itself. */
    private final List<ChildJvm> children = Collections.synchronizedList(new ArrayList<>());
    private final Thread hook;
    private int runs;

    private JacobiCluster(JacobiProcesses.Layout layout, Path dir) {
        this.layout = layout;
        this.dir = dir;
        this.hook = new Thread(this::stopChildren, "jacobi-children");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /**
     * Starts the layout's daemons (each with its own node directory, shared-memory directory and
     * the cluster's key) and waits until each is up.
     *
     * @param layout how many daemons
     * @return the running cluster
     * @throws UncheckedIOException if a daemon cannot be started (the cluster made so far is removed)
     */
    public static JacobiCluster start(JacobiProcesses.Layout layout) {
        JacobiCluster c;
        try {
            c = new JacobiCluster(layout, SampleDirs.privateTempDir("softcmi-jacobi-"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            c.startDaemons();
            return c;
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
        }
    }

    private void startDaemons() throws IOException {
        Path key = SampleDirs.newClusterKey(dir);
        String tag = ProcessHandle.current().pid() + "-" + dir.getFileName().toString().substring("softcmi-jacobi-".length());
        for (int d = 0; d < layout.daemons(); d++) {
            Path s = Path.of("/dev/shm", "softcmi-jacobi-" + tag + "-" + d);
            shm.add(s);
            ChildJvm cmid = ChildJvm.start("cmid " + d, Map.of(), List.of(), dir.resolve("cmid" + d + ".log"),
                "io.softcmi.node.Cmid", "--dir", dir.resolve("node" + d).toString(), "--listen", "127.0.0.1:0",
                "--cluster-key", key.toString(), "--name", "jacobi" + d, "--shm-dir", s.toString());
            children.add(cmid);
            cmid.awaitLine(l -> l.startsWith("cmid:"), START_TIMEOUT_MS);
        }
    }

    /**
     * Runs the stencil once with the layout's workers, each in its own process on daemon
     * {@code rank % daemons}.
     *
     * @param n grid size
     * @param iterations iterations
     * @param expected the sequential result ({@link JacobiStencil#sequential(int, int)})
     * @param workerOptions JVM options of the worker processes
     * @return times, the comparison and the counters
     * @throws UncheckedIOException if a worker cannot be started or fails, or a daemon ends (the
     *         message quotes its output and log)
     */
    public JacobiProcesses.Outcome run(int n, int iterations, double[][] expected, List<String> workerOptions) {
        Path runDir = dir.resolve("run-" + ++runs);
        List<ChildJvm> workers = new ArrayList<>();
        try {
            Files.createDirectory(runDir);
            for (int r = 0; r < layout.workers(); r++) {
                ChildJvm w = ChildJvm.start("worker " + r,
                    Map.of("SOFTCMI_NODE", dir.resolve("node" + (r % layout.daemons())).toString()),
                    workerOptions, runDir.resolve("worker" + r + ".log"), JacobiWorker.class.getName(), runDir.toString(),
                    Integer.toString(r), Integer.toString(layout.workers()), Integer.toString(n), Integer.toString(iterations));
                children.add(w);
                workers.add(w);
            }
            awaitWorkers(workers);
            double seconds = 0;
            List<String> counters = new ArrayList<>();
            List<String> phases = new ArrayList<>();
            for (ChildJvm w : workers) {
                List<String> out = w.awaitExit(10_000);
                seconds = Math.max(seconds, Double.parseDouble(field(out, "TIME ", w)));
                counters.add(field(out, "CACHE ", w));
                phases.add(field(out, "PHASES ", w));
            }
            JacobiBands.Comparison result = JacobiBands.compareFiles(runDir, layout.workers(), n, expected);
            return new JacobiProcesses.Outcome(layout, seconds, result.mismatches(), result.maxDiff(),
                List.copyOf(counters), List.copyOf(phases));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (ChildJvm w : workers) {
                w.close();
                children.remove(w);
            }
            SampleDirs.deleteQuietly(runDir);
        }
    }

    /**
     * Waits (at most {@link JacobiProcesses#RUN_TIMEOUT_MS}) until every worker has ended; the
     * first that fails ends the wait, so the error quoted is the first cause, not a partner's
     * barrier timeout. A daemon that ends meanwhile fails the run too.
     */
    private void awaitWorkers(List<ChildJvm> workers) throws IOException {
        long deadline = System.nanoTime() + JacobiProcesses.RUN_TIMEOUT_MS * 1_000_000;
        while (workers.stream().anyMatch(ChildJvm::alive)) {
            for (ChildJvm c : List.copyOf(children)) {
                if (c.failed() || (!workers.contains(c) && !c.alive())) {
                    throw new IOException("a process of the run ended early; " + c.describe());
                }
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IOException("the workers did not end in " + JacobiProcesses.RUN_TIMEOUT_MS + " ms");
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
        }
    }

    private static String field(List<String> out, String prefix, ChildJvm w) {
        return out.stream().filter(l -> l.startsWith(prefix)).findFirst().map(l -> l.substring(prefix.length()))
            .orElseThrow(() -> new IllegalStateException("no " + prefix.trim() + " line; " + w.describe()));
    }

    /** Stops every process, workers before daemons (the reverse of their start). */
    private void stopChildren() {
        synchronized (children) {
            for (int i = children.size() - 1; i >= 0; i--) {
                children.get(i).close();
            }
            children.clear();
        }
    }

    /** Stops the daemons (and any worker left) and deletes the cluster's directories. */
    @Override
    public void close() {
        stopChildren();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException ignored) {
            // already shutting down: the hook stops the children
        }
        SampleDirs.deleteQuietly(dir);
        shm.forEach(SampleDirs::deleteQuietly);
    }
}
