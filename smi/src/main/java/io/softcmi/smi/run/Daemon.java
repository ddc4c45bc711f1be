package io.softcmi.smi.run;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A {@code cmid} that {@code smirun} started for the job: its output goes to a log in the job
 * directory; {@link #stop()} ends it with SIGTERM (SIGKILL if it does not go) and removes its
 * directories. A daemon on another host is stopped there: ending the local {@code ssh} would
 * leave it running (no terminal, no hang-up), so {@link #stop()} first runs a {@code kill} of the
 * pid in its node directory over the same {@code ssh}/{@code srun}.
 */
final class Daemon {
    private static final String READY = "cmid: node ";

    private final String name;
    private final Path dir;
    private final Path shmDir;
    private final Path log;
    private final Process process;
    private final CountDownLatch ready = new CountDownLatch(1);
    /** For a daemon on another host: the local command that stops it there; null for a local one. */
    private List<String> remoteStop;

    private Daemon(String name, Path dir, Path shmDir, Path log, Process process) {
        this.name = name;
        this.dir = dir;
        this.shmDir = shmDir;
        this.log = log;
        this.process = process;
    }

    /**
     * The command that ends a daemon on another host: {@code kill} of the pid its {@code cmid}
     * wrote into its node directory, run there.
     *
     * @param remote wraps a command to run on the daemon's host ({@link Commands#remote})
     * @param dir the daemon's node directory (the same path on that host)
     * @return the local command
     */
    static List<String> remoteStopCommand(java.util.function.UnaryOperator<List<String>> remote, Path dir) {
        return remote.apply(List.of("sh", "-c", "kill $(cat " + Commands.quote(dir.resolve("cmid.pid").toString())
            + ") 2>/dev/null; true"));
    }

    /** @param command the local command that stops this daemon on its host ({@link #remoteStopCommand}) */
    void stopRemotelyWith(List<String> command) {
        this.remoteStop = List.copyOf(command);
    }

    /**
     * Starts a daemon; returns once it is serving.
     *
     * @param cmd its command ({@link Commands#cmid})
     * @param name its node name
     * @param dir its node directory
     * @param shmDir its segment directory
     * @param log its log file
     * @param timeoutSeconds how long to wait until it serves
     * @return the running daemon
     * @throws IOException if it cannot be started or does not serve in time
     */
    static Daemon start(List<String> cmd, String name, Path dir, Path shmDir, Path log, int timeoutSeconds)
            throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.from(
            Path.of("/dev/null").toFile())).start();
        Daemon d = new Daemon(name, dir, shmDir, log, p);
        Thread.ofPlatform().daemon().name("smirun-cmid-" + name).start(d::pump);
        try {
            if (!d.ready.await(timeoutSeconds, TimeUnit.SECONDS) || !p.isAlive()) {
                d.stop();
                throw new IOException("cmid " + name + " did not start serving within " + timeoutSeconds + " s (log: "
                    + log + ")");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            d.stop();
            throw new IOException("interrupted while starting cmid " + name);
        }
        return d;
    }

    private void pump() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                PrintWriter w = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8), true)) {
            String line;
            while ((line = r.readLine()) != null) {
                w.println(line);
                if (line.startsWith(READY + name + " serving")) {
                    ready.countDown();
                }
            }
        } catch (IOException e) {
            // The daemon went away; stop() and the exit status tell the rest.
        } finally {
            ready.countDown();
        }
    }

    /** @return its node directory (what {@code SOFTCMI_NODE} names) */
    Path dir() {
        return dir;
    }

    /** @return its process id */
    long pid() {
        return process.pid();
    }

    /** Stops it (SIGTERM, then SIGKILL after 20 s) and removes its directories. */
    void stop() {
        if (remoteStop != null && process.isAlive()) {
            try {
                Process k = new ProcessBuilder(remoteStop).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                if (!k.waitFor(20, TimeUnit.SECONDS)) {
                    k.destroyForcibly();
                }
                process.waitFor(20, TimeUnit.SECONDS); // the daemon's SIGTERM shutdown ends the ssh too
            } catch (IOException e) {
                // Fall through to ending the local end.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        deleteTree(shmDir);
        deleteTree(dir);
    }

    static void deleteTree(Path p) {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> s = Files.walk(p)) {
            s.sorted(Comparator.reverseOrder()).forEach(f -> {
                try {
                    Files.deleteIfExists(f);
                } catch (IOException ignored) {
                    // Best effort: a file that cannot go is reported by the caller's own check.
                }
            });
        } catch (IOException ignored) {
            // Already gone.
        }
    }
}
