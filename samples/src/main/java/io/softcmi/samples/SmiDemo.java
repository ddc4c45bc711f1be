package io.softcmi.samples;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The SMI part of {@code softcmi demo}: runs {@code smirun -np 4 -nodes local:a local:a local:b
 * local:b -- io.softcmi.smi.samples.HelloWorld} in a child JVM with this JVM's class path, so that
 * smirun starts two {@code cmid} daemons and four ranks, and prints its output.
 */
public final class SmiDemo {
    private static final long TIMEOUT_SECONDS = 180;

    private SmiDemo() {
    }

    /**
     * Runs smirun and checks that all four ranks greeted.
     *
     * @param out where to print
     * @throws IllegalStateException if smirun fails or a rank did not greet
     */
    public static void run(PrintStream out) {
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
            "io.softcmi.smi.run.SmiRun", "-v", "-np", "4", "-nodes", "local:a", "local:a", "local:b", "local:b", "--",
            "io.softcmi.smi.samples.HelloWorld");
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
            pb.environment().remove("SOFTCMI_NODE");
            Process p = pb.start();
            int greetings = 0;
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.startsWith("smirun: rank ") || line.contains(": starting ")) {
                        continue; // the full command lines are long; the plan lines say enough
                    }
                    out.println("  " + line);
                    if (line.startsWith("Hello world from process")) {
                        greetings++;
                    }
                }
            }
            if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("smirun did not end within " + TIMEOUT_SECONDS + " s");
            }
            if (p.exitValue() != 0 || greetings != 4) {
                throw new IllegalStateException("smirun exited with " + p.exitValue() + " after " + greetings + " greetings");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
