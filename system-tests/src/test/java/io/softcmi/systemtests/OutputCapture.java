package io.softcmi.systemtests;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Reads a child process's merged stdout/stderr on a daemon thread: every line goes to the
 * process's log file (kept when a test fails) and to a queue the test takes protocol lines from.
 */
final class OutputCapture {
    /** Queued after the last line when the stream ends. */
    private static final String END = new String("<end of output>");

    private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Path log;
    private final Thread reader;

    OutputCapture(String name, InputStream in, Path log) {
        this.log = log;
        this.reader = Thread.ofPlatform().daemon().name("output-" + name).start(() -> pump(in));
    }

    private void pump(InputStream in) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
                Writer w = Files.newBufferedWriter(log, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND)) {
            String line;
            while ((line = r.readLine()) != null) {
                w.write(line);
                w.write('\n');
                w.flush();
                lines.add(line);
            }
        } catch (IOException e) {
            lines.add("<output read failed: " + e.getMessage() + ">");
        } finally {
            lines.add(END);
        }
    }

    /**
     * Waits for the next line that matches; lines before it are skipped (they stay in the log).
     *
     * @param what describes the line, for the failure message
     * @param matches which line
     * @param deadline how long to wait at most
     * @return the line
     * @throws AssertionError if the output ends or the deadline passes first
     */
    String awaitLine(String what, Predicate<String> matches, Deadline deadline) {
        while (true) {
            String line;
            try {
                line = lines.poll(deadline.remainingMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what, e);
            }
            if (line == null) {
                throw new AssertionError("no " + what + " within " + deadline + " (log: " + log + ")");
            }
            if (line == END) {
                lines.add(END); // later waits fail the same way
                throw new AssertionError("output ended before " + what + " (log: " + log + ")");
            }
            if (matches.test(line)) {
                return line;
            }
        }
    }

    /** @return the log file */
    Path log() {
        return log;
    }

    /** Waits a little for the reader to reach the end of the output (after the process exited). */
    void drain() {
        try {
            reader.join(Deadline.scaled(java.time.Duration.ofSeconds(5)).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
