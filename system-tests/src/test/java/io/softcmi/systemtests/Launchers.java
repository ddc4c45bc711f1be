package io.softcmi.systemtests;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs the shell launchers ({@code bin/softcmi}, {@code bin/cmid}, {@code bin/cmiadm}) of a
 * source tree or an unpacked distribution as an operator would, with output to files.
 */
final class Launchers {
    /** Result of one finished command. */
    record Run(int exit, String output) {
    }

    private final Path root;
    private final Path logs;
    private final Map<String, String> env;
    private int count;

    /**
     * @param root the directory holding {@code bin/}
     * @param logs where each command's output goes
     * @param env environment additions ({@code SOFTCMI_NODE} is removed unless given here)
     */
    Launchers(Path root, Path logs, Map<String, String> env) {
        this.root = root;
        this.logs = logs;
        this.env = env;
    }

    private ProcessBuilder builder(Map<String, String> extraEnv, String... command) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(root.resolve("bin").resolve(command[0]).toString());
        cmd.addAll(List.of(command).subList(1, command.length));
        Files.createDirectories(logs);
        Path out = logs.resolve(String.format("%02d-%s.log", ++count, command[0]));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile())
            .directory(logs.toFile());
        pb.environment().remove("SOFTCMI_NODE");
        // The launchers find a JDK themselves; give them this one so the test does not depend on the PATH.
        pb.environment().put("SOFTCMI_JAVA_HOME", System.getProperty("java.home"));
        pb.environment().putAll(env);
        pb.environment().putAll(extraEnv);
        return pb;
    }

    /** Runs a command to its end (bounded) and returns its exit status and output. */
    Run run(Duration limit, Map<String, String> extraEnv, String... command) throws Exception {
        ProcessBuilder pb = builder(extraEnv, command);
        Process p = pb.start();
        if (!p.waitFor(Deadline.scaled(limit).toMillis(), TimeUnit.MILLISECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
            fail(String.join(" ", command) + " did not finish within " + limit + ": "
                + Files.readString(pb.redirectOutput().file().toPath()));
        }
        return new Run(p.exitValue(), Files.readString(pb.redirectOutput().file().toPath(), StandardCharsets.UTF_8));
    }

    /** Runs a command that must succeed and returns its output. */
    String ok(Duration limit, Map<String, String> extraEnv, String... command) throws Exception {
        Run r = run(limit, extraEnv, command);
        assertTrue(r.exit() == 0, String.join(" ", command) + " exited " + r.exit() + ":\n" + r.output());
        return r.output();
    }

    /** A started background command (a daemon) and its output file. */
    record Background(Process process, Path output) implements AutoCloseable {
        /** Waits until the output holds {@code text}, or fails with the output. */
        String await(String text, Duration limit) throws Exception {
            Deadline d = Deadline.in(limit);
            while (true) {
                String s = Files.readString(output);
                if (s.contains(text)) {
                    return s;
                }
                if (!process.isAlive()) {
                    fail("process exited " + process.exitValue() + " before printing '" + text + "':\n" + s);
                }
                if (d.expired()) {
                    fail("no '" + text + "' within " + limit + ":\n" + s);
                }
                Thread.sleep(50);
            }
        }

        /** SIGTERM, then waits (bounded); returns the exit status. */
        int stop() throws Exception {
            process.destroy();
            if (!process.waitFor(Deadline.scaled(Duration.ofSeconds(30)).toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
                fail("daemon did not stop on SIGTERM:\n" + Files.readString(output));
            }
            return process.exitValue();
        }

        @Override
        public void close() throws IOException {
            if (process.isAlive()) {
                process.destroyForcibly();
                try {
                    process.waitFor(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** Starts a long-running command (the launcher execs the JVM, so the process is the JVM). */
    Background start(Map<String, String> extraEnv, String... command) throws Exception {
        ProcessBuilder pb = builder(extraEnv, command);
        return new Background(pb.start(), pb.redirectOutput().file().toPath());
    }
}
