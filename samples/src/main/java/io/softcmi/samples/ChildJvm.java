package io.softcmi.samples;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A Java child process on this JVM's class path (a {@code cmid} or a worker of the Jacobi
 * sample): its standard output is collected line by line, its standard error goes to a log file
 * that {@link #describe()} quotes when something fails.
 */
final class ChildJvm implements AutoCloseable {
    private static final String EOF = new String("<eof>"); // compared by identity
    private final String name;
    private final Process process;
    private final Path log;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> seen = new ArrayList<>();

    private ChildJvm(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
        Thread.ofVirtual().name(name + "-stdout").start(this::drain);
    }

    /**
     * Starts {@code java --enable-native-access=ALL-UNNAMED [-Dsoftcmi.*] [-Djacobi.*] [jvmOptions] -cp CLASSPATH mainAndArgs}
     * (every {@code softcmi.*} and {@code jacobi.*} system property of this JVM is passed on).
     *
     * @param name a name for messages
     * @param env extra environment variables
     * @param jvmOptions JVM options
     * @param log where standard error goes
     * @param mainAndArgs the main class and its arguments
     * @return the running child
     * @throws IOException if it cannot be started
     */
    static ChildJvm start(String name, Map<String, String> env, List<String> jvmOptions, Path log, String... mainAndArgs)
            throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--enable-native-access=ALL-UNNAMED"));
        // The launcher's softcmi.* settings (polling, cache line size, ...) and jacobi.* ones hold for its children too.
        System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith("softcmi.") || k.startsWith("jacobi."))
            .sorted()
            .forEach(k -> cmd.add("-D" + k + "=" + System.getProperty(k)));
        cmd.addAll(io.softcmi.cmi.internal.JitOptions.forChild());
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path")));
        cmd.addAll(List.of(mainAndArgs));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(log.toFile());
        pb.environment().putAll(env);
        return new ChildJvm(name, pb.start(), log);
    }

    /**
     * Waits for a line of standard output that {@code wanted} accepts.
     *
     * @param timeoutMillis the longest wait
     * @return the line
     * @throws IOException if the child ends or stays silent that long
     */
    String awaitLine(Predicate<String> wanted, long timeoutMillis) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        try {
            while (true) {
                String l = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (l == null || l == EOF) {
                    if (l == EOF) {
                        lines.add(EOF);
                    }
                    throw new IOException(name + (l == null ? " printed no expected line in " + timeoutMillis + " ms"
                        : " ended without the expected line") + "; " + describe());
                }
                seen.add(l);
                if (wanted.test(l)) {
                    return l;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /**
     * Waits for the child to exit with status 0 and returns every line it printed.
     *
     * @param timeoutMillis the longest wait
     * @return its standard output
     * @throws IOException if it does not end in time or fails
     */
    List<String> awaitExit(long timeoutMillis) throws IOException {
        try {
            if (!process.waitFor(timeoutMillis, TimeUnit.MILLISECONDS)) {
                throw new IOException(name + " did not end in " + timeoutMillis + " ms; " + describe());
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            String l;
            while ((l = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) != null && l != EOF) {
                seen.add(l);
            }
            if (process.exitValue() != 0) {
                throw new IOException(name + " exited with status " + process.exitValue() + "; " + describe());
            }
            return List.copyOf(seen);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** @return whether the child has ended with a status other than 0 */
    boolean failed() {
        return !process.isAlive() && process.exitValue() != 0;
    }

    /** @return whether the child still runs */
    boolean alive() {
        return process.isAlive();
    }

    /** @return the child's name, output so far and the end of its standard error */
    String describe() {
        String err;
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            err = String.join("\n", all.subList(Math.max(0, all.size() - 40), all.size()));
        } catch (IOException e) {
            err = "(no log: " + e.getMessage() + ")";
        }
        return name + " output " + seen + ", standard error:\n" + err;
    }

    /** Stops the child if it still runs: politely, then forcibly after 10 s. */
    @Override
    public void close() {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private void drain() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String l;
            while ((l = r.readLine()) != null) {
                lines.add(l);
            }
        } catch (IOException ignored) {
            // the child is gone
        } finally {
            lines.add(EOF);
        }
    }
}
