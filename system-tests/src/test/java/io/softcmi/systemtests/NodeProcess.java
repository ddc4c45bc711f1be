package io.softcmi.systemtests;

import io.softcmi.node.Cmid;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code cmid} daemon in its own JVM, in a fresh node directory under the temp directory
 * and with its own shared-memory directory {@code /dev/shm/softcmi-test-<random>}. Started by
 * {@link #start}, which returns once the daemon printed its ready line; {@link #stop()} sends
 * SIGTERM and waits; {@link #close()} makes sure the process is gone and every file it may have
 * left is removed.
 */
final class NodeProcess implements AutoCloseable {
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(20);

    private final String name;
    private final Path directory;
    private final Path shmDirectory;
    private final boolean ownsDirectory;
    private final Process process;
    private final OutputCapture output;

    private NodeProcess(String name, Path directory, Path shmDirectory, boolean ownsDirectory, Process process,
            OutputCapture output) {
        this.name = name;
        this.directory = directory;
        this.shmDirectory = shmDirectory;
        this.ownsDirectory = ownsDirectory;
        this.process = process;
        this.output = output;
    }

    /**
     * Starts a daemon in a fresh directory and waits until it serves.
     *
     * @param logDir where its log goes
     * @param name node name
     * @param extraArgs more {@code cmid} options, e.g. {@code --memory 67108864}
     * @return the running node
     * @throws IOException if it cannot be started
     */
    static NodeProcess start(Path logDir, String name, String... extraArgs) throws IOException {
        return start(List.of(), logDir, name, extraArgs);
    }

    /**
     * Starts a daemon with JVM options (system properties such as {@code -Dsoftcmi.sched.sliceMicros=0})
     * in a fresh directory and waits until it serves.
     *
     * @param jvmOptions options before the main class
     * @param logDir where its log goes
     * @param name node name
     * @param extraArgs more {@code cmid} options
     * @return the running node
     * @throws IOException if it cannot be started
     */
    static NodeProcess start(List<String> jvmOptions, Path logDir, String name, String... extraArgs) throws IOException {
        Path dir = Files.createTempDirectory("softcmi-node-");
        NodeProcess node = launch(List.of(), jvmOptions, logDir, name, dir, true, extraArgs);
        try {
            node.awaitReady();
        } catch (RuntimeException | Error e) {
            try {
                node.close();
            } catch (IOException | RuntimeException | Error cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
        return node;
    }

    /**
     * Starts a daemon on a given directory without waiting for it (it may be meant to fail).
     *
     * @param logDir where its log goes
     * @param name node name
     * @param dir node directory
     * @param ownsDirectory whether {@link #close()} deletes {@code dir}
     * @param extraArgs more {@code cmid} options
     * @return the started process
     * @throws IOException if it cannot be started
     */
    static NodeProcess launch(Path logDir, String name, Path dir, boolean ownsDirectory, String... extraArgs)
            throws IOException {
        return launch(List.of(), logDir, name, dir, ownsDirectory, extraArgs);
    }

    /**
     * Starts a daemon through a command prefix (for example {@code nsenter} into a network
     * namespace, see {@link NetworkNamespaces}) without waiting for it.
     *
     * @param prefix words before {@code java}; empty for none
     * @param logDir where its log goes
     * @param name node name
     * @param dir node directory
     * @param ownsDirectory whether {@link #close()} deletes {@code dir}
     * @param extraArgs more {@code cmid} options
     * @return the started process
     * @throws IOException if it cannot be started
     */
    static NodeProcess launch(List<String> prefix, Path logDir, String name, Path dir, boolean ownsDirectory,
            String... extraArgs) throws IOException {
        return launch(prefix, List.of(), logDir, name, dir, ownsDirectory, extraArgs);
    }

    private static NodeProcess launch(List<String> prefix, List<String> jvmOptions, Path logDir, String name, Path dir,
            boolean ownsDirectory, String... extraArgs) throws IOException {
        Path shm = freshShmDirectory();
        List<String> args = new ArrayList<>(List.of("--dir", dir.toString(), "--shm-dir", shm.toString(),
            "--name", name));
        args.addAll(List.of(extraArgs));
        Files.createDirectories(logDir);
        Process p = ChildJvm.start(prefix, Cmid.class, jvmOptions, args, Map.of());
        OutputCapture out = new OutputCapture("cmid-" + name, p.getInputStream(), logDir.resolve("cmid-" + name + ".log"));
        return new NodeProcess(name, dir, shm, ownsDirectory, p, out);
    }

    private static Path freshShmDirectory() throws IOException {
        Path base = Path.of("/dev/shm");
        String leaf = "softcmi-test-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
        if (Files.isDirectory(base)) {
            return base.resolve(leaf);
        }
        return Files.createTempDirectory("softcmi-shm-").resolve(leaf);
    }

    /** Waits for {@code cmid: node NAME serving DIR ...}. */
    void awaitReady() {
        String prefix = "cmid: node " + name + " serving ";
        output.awaitLine("ready line of cmid " + name, l -> l.startsWith(prefix), Deadline.in(READY_TIMEOUT));
    }

    /** @return the node directory, what {@code SOFTCMI_NODE} names */
    Path directory() {
        return directory;
    }

    /** @return where its segment files live */
    Path shmDirectory() {
        return shmDirectory;
    }

    /** @return the control socket */
    Path socket() {
        return directory.resolve("cmid.sock");
    }

    /** @return the lock file */
    Path lockFile() {
        return directory.resolve("cmid.lock");
    }

    /**
     * @param segmentId a segment id
     * @return the file that holds that segment's memory
     */
    Path segmentFile(long segmentId) {
        return shmDirectory.resolve("seg-" + segmentId);
    }

    /**
     * Waits until no segment file is left in the shared-memory directory: after processes leave,
     * the daemon reclaims their segments as soon as it sees their connections close.
     *
     * @param timeout how long at most (scaled)
     * @return the number of segment files still there when the wait ended
     * @throws IOException if the directory cannot be listed
     */
    long awaitNoSegmentFiles(Duration timeout) throws IOException {
        Deadline deadline = Deadline.in(timeout);
        while (true) {
            long left;
            try (var files = Files.list(shmDirectory)) {
                left = files.filter(f -> f.getFileName().toString().startsWith("seg-")).count();
            }
            if (left == 0 || deadline.expired()) {
                return left;
            }
            sleep(Duration.ofMillis(20));
        }
    }

    /**
     * Waits until a file is gone.
     *
     * @param file the file
     * @param timeout how long at most (scaled)
     * @return whether it is gone
     */
    static boolean awaitGone(Path file, Duration timeout) {
        Deadline deadline = Deadline.in(timeout);
        while (Files.exists(file)) {
            if (deadline.expired()) {
                return false;
            }
            sleep(Duration.ofMillis(20));
        }
        return true;
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** @return the log of the daemon */
    Path log() {
        return output.log();
    }

    /** @return whether the daemon is running */
    boolean isAlive() {
        return process.isAlive();
    }

    /** @return the daemon's process id */
    long pid() {
        return process.pid();
    }

    /**
     * Waits for the daemon to exit by itself.
     *
     * @param timeout how long at most (scaled)
     * @return its exit status
     * @throws AssertionError if it is still running after the timeout
     */
    int awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(Deadline.scaled(timeout).toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("cmid " + name + " still running after " + timeout + " (log: " + log() + ")");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
        output.drain();
        return process.exitValue();
    }

    /**
     * Stops the daemon with SIGTERM (as {@code Process.destroy()} does on Linux), waits, and checks
     * that it removed its socket, lock and shared-memory directory.
     *
     * @return its exit status
     * @throws AssertionError if it does not stop in time (it is then killed) or left files behind
     */
    int stop() {
        process.destroy();
        int status;
        try {
            status = awaitExit(STOP_TIMEOUT);
        } catch (AssertionError e) {
            process.destroyForcibly();
            throw e;
        }
        List<Path> left = leftovers();
        if (!left.isEmpty()) {
            throw new AssertionError("cmid " + name + " left " + left + " after SIGTERM (log: " + log() + ")");
        }
        return status;
    }

    /** Kills the daemon with SIGKILL and waits for it. */
    void kill() {
        process.destroyForcibly();
        awaitExit(STOP_TIMEOUT);
    }

    /**
     * @return what a clean shutdown should have removed but is still there; empty when clean
     */
    List<Path> leftovers() {
        List<Path> left = new ArrayList<>();
        for (Path p : List.of(socket(), lockFile(), shmDirectory)) {
            if (Files.exists(p)) {
                left.add(p);
            }
        }
        return left;
    }

    /**
     * Stops the daemon if it still runs, as {@link #stop()} does (so a daemon that does not clean
     * up after itself fails the test), killing it if it must, and removes everything it used.
     *
     * @throws IOException if its files cannot be removed
     * @throws AssertionError if the daemon did not stop or clean up on SIGTERM
     */
    @Override
    public void close() throws IOException {
        try {
            if (process.isAlive()) {
                stop();
            }
        } finally {
            if (process.isAlive()) {
                process.destroyForcibly();
                try {
                    process.waitFor(Deadline.scaled(STOP_TIMEOUT).toMillis(), TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            Files2.deleteTree(shmDirectory);
            if (ownsDirectory) {
                Files2.deleteTree(directory);
            }
        }
    }

    @Override
    public String toString() {
        return "cmid " + name + " (pid " + process.pid() + ", dir " + directory + ")";
    }
}
