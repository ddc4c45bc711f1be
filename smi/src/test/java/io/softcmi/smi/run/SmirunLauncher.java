package io.softcmi.smi.run;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Runs {@code smirun} in a child JVM with this JVM's class path, for the SMI system tests: a hard
 * timeout, optionally a SIGTERM once its output shows a line often enough, and afterwards every
 * process it started ended and no segment directory of its daemons left in {@code /dev/shm};
 * its combined output returned.
 */
final class SmirunLauncher {
    private static final double FACTOR = Double.parseDouble(System.getProperty("softcmi.test.timeoutFactor", "1"));

    private SmirunLauncher() {
    }

    /** The exit code, the output and the duration of one run. */
    record Result(int exit, String output, Duration took) {
    }

    /**
     * @param dir the working directory (the log goes there)
     * @param timeout the run's bound, before {@code softcmi.test.timeoutFactor}
     * @param env environment added to smirun's
     * @param args smirun's arguments
     * @return the run's result
     * @throws IOException if the log cannot be read
     * @throws InterruptedException if interrupted
     */
    static Result run(Path dir, Duration timeout, Map<String, String> env, String... args)
            throws IOException, InterruptedException {
        return run(dir, timeout, env, null, 0, args);
    }

    /**
     * {@link #run(Path, Duration, Map, String...)} that sends smirun SIGTERM once its output has
     * {@code stopLine} {@code stopCount} times.
     *
     * @param dir the working directory (the log goes there)
     * @param timeout the run's bound, before {@code softcmi.test.timeoutFactor}
     * @param env environment added to smirun's
     * @param stopLine the line to stop at, or null
     * @param stopCount how often it must appear first
     * @param args smirun's arguments
     * @return the run's result
     * @throws IOException if the log cannot be read
     * @throws InterruptedException if interrupted
     */
    static Result run(Path dir, Duration timeout, Map<String, String> env, String stopLine, int stopCount,
            String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-Xmx128m", "-cp",
            System.getProperty("java.class.path"), SmiRun.class.getName()));
        cmd.addAll(List.of(args));
        Path log = Files.createTempFile(dir, "smirun-", ".log");
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
            .redirectOutput(log.toFile());
        pb.environment().remove("SOFTCMI_NODE");
        pb.environment().remove("SMI_RANK");
        pb.environment().put("SMI_JAVA_OPTS", "-XX:+UseSerialGC -Xms16m -Xmx256m -XX:TieredStopAtLevel=1");
        pb.environment().putAll(env);
        long bound = (long) (timeout.toNanos() * FACTOR);
        long t0 = System.nanoTime();
        Process p = pb.start();
        Set<ProcessHandle> seen = new HashSet<>();
        try {
            boolean stopped = false;
            while (!p.waitFor(100, TimeUnit.MILLISECONDS)) {
                p.descendants().forEach(seen::add);
                if (stopLine != null && !stopped
                        && Files.readString(log).split(Pattern.quote(stopLine), -1).length > stopCount) {
                    p.destroy();
                    stopped = true;
                }
                if (System.nanoTime() - t0 > bound) {
                    fail("smirun " + String.join(" ", args) + " still running after " + timeout + ":\n"
                        + Files.readString(log));
                }
            }
        } finally {
            if (p.isAlive()) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
        }
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        String out = Files.readString(log, StandardCharsets.UTF_8);
        // Nothing smirun started may outlive it, and no segment directory of its daemons may remain.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (ProcessHandle h : seen) {
            while (h.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertFalse(h.isAlive(), "process " + h.pid() + " outlived smirun:\n" + out);
        }
        try (Stream<Path> shm = Files.list(Path.of("/dev/shm"))) {
            String prefix = "softcmi-smi-" + p.pid() + "-";
            List<Path> left = shm.filter(f -> f.getFileName().toString().startsWith(prefix)).toList();
            assertTrue(left.isEmpty(), "segment directories left behind: " + left);
        }
        return new Result(p.exitValue(), out, took);
    }
}
