package io.softcmi.systemtests;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A CMI client process of the cross-node tests: a child JVM running {@link RemoteWorkers} on one
 * node ({@code SOFTCMI_NODE}). One command line in, one reply line out; everything else the
 * process prints goes to its log. Closing it ends the process (killing it if it must).
 */
final class RemoteClient implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration REPLY_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(15);

    private final String name;
    private final Process process;
    private final OutputCapture output;
    private final Writer input;

    private RemoteClient(String name, Process process, OutputCapture output) {
        this.name = name;
        this.process = process;
        this.output = output;
        this.input = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    }

    /**
     * Starts a worker process on a node without waiting for it (see {@link #awaitReady()}), so
     * that several can start at once.
     *
     * @param logDir where its log goes
     * @param name a name for logs and messages
     * @param nodeDirectory the node it joins
     * @return the starting client
     * @throws IOException if it cannot be started
     */
    static RemoteClient launch(Path logDir, String name, Path nodeDirectory) throws IOException {
        Files.createDirectories(logDir);
        Process p = ChildJvm.start(RemoteWorkers.class, List.of(), List.of(name),
            Map.of("SOFTCMI_NODE", nodeDirectory.toString()));
        return new RemoteClient(name, p, new OutputCapture(name, p.getInputStream(),
            logDir.resolve("client-" + name + ".log")));
    }

    /** Waits until the worker's context is open. */
    void awaitReady() {
        String ready = awaitReply(Deadline.in(START_TIMEOUT));
        if (!ready.startsWith("READY")) {
            throw new AssertionError(name + " failed to start: " + ready + " (log: " + log() + ")");
        }
    }

    /**
     * Sends a command and waits for its reply.
     *
     * @param command a {@link RemoteWorkers} command line
     * @return the reply, without the reply prefix
     */
    String request(String command) {
        return request(command, REPLY_TIMEOUT);
    }

    /**
     * Sends a command and waits for its reply.
     *
     * @param command a {@link RemoteWorkers} command line
     * @param timeout how long to wait (scaled)
     * @return the reply, without the reply prefix
     */
    String request(String command, Duration timeout) {
        send(command);
        return awaitReply(Deadline.in(timeout));
    }

    /**
     * Sends a command and returns what follows {@code expectedWord} in its reply.
     *
     * @param command a {@link RemoteWorkers} command line
     * @param expectedWord the first word of a successful reply, e.g. {@code HANDLE}
     * @return the rest of the reply (may be empty)
     * @throws AssertionError if the reply is anything else
     */
    String expect(String command, String expectedWord) {
        String reply = request(command);
        if (reply.equals(expectedWord)) {
            return "";
        }
        if (!reply.startsWith(expectedWord + " ")) {
            throw new AssertionError(name + ": '" + abbreviate(command) + "' answered '" + reply + "', expected "
                + expectedWord + " (log: " + log() + ")");
        }
        return reply.substring(expectedWord.length() + 1);
    }

    /**
     * Sends a command without waiting for its reply.
     *
     * @param command a {@link RemoteWorkers} command line
     */
    void send(String command) {
        try {
            input.write(command);
            input.write('\n');
            input.flush();
        } catch (IOException e) {
            throw new AssertionError(name + " does not take commands any more (log: " + log() + ")", e);
        }
    }

    /**
     * @param timeout how long at most (scaled)
     * @return the next reply
     */
    String awaitReply(Duration timeout) {
        return awaitReply(Deadline.in(timeout));
    }

    private String awaitReply(Deadline deadline) {
        return output.awaitLine("reply from " + name, l -> l.startsWith(RemoteWorkers.REPLY), deadline)
            .substring(RemoteWorkers.REPLY.length());
    }

    /** @return its log file */
    Path log() {
        return output.log();
    }

    /** @return its name */
    String name() {
        return name;
    }

    /** Ends the process: closing its stdin makes it leave CMI and exit; if it does not, it is killed. */
    @Override
    public void close() {
        try {
            input.close();
        } catch (IOException ignored) {
            // It is gone already.
        }
        try {
            if (!process.waitFor(Deadline.scaled(EXIT_TIMEOUT).toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(Deadline.scaled(EXIT_TIMEOUT).toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        output.drain();
    }

    private static String abbreviate(String s) {
        return s.length() > 80 ? s.substring(0, 80) + "..." : s;
    }

    @Override
    public String toString() {
        return "client " + name + " (pid " + process.pid() + ")";
    }
}
