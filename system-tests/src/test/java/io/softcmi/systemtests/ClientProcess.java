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
 * A CMI client process: a child JVM running {@link Workers} with {@code SOFTCMI_NODE} set to a
 * node directory. The test sends it one command per line and reads one reply line per command
 * (the lines {@link Workers} starts with {@value Workers#REPLY}); everything the process prints
 * goes to its log.
 */
final class ClientProcess implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration REPLY_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(15);

    private final String name;
    private final Process process;
    private final OutputCapture output;
    private final Writer input;

    private ClientProcess(String name, Process process, OutputCapture output) {
        this.name = name;
        this.process = process;
        this.output = output;
        this.input = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    }

    /**
     * Starts a client of a node and waits until its context is initialized.
     *
     * @param logDir where its log goes
     * @param name a name for logs and messages
     * @param nodeDirectory the node to join ({@code SOFTCMI_NODE})
     * @return the client, its context open
     * @throws IOException if it cannot be started
     */
    static ClientProcess start(Path logDir, String name, Path nodeDirectory) throws IOException {
        return start(List.of(), logDir, name, nodeDirectory);
    }

    /**
     * Starts a worker process with JVM options (system properties) on a node and waits until its
     * context is open.
     *
     * @param jvmOptions options before the main class
     * @param logDir where its log goes
     * @param name a name for logs and messages
     * @param nodeDirectory the node to join ({@code SOFTCMI_NODE})
     * @return the running client
     * @throws IOException if it cannot be started
     */
    static ClientProcess start(List<String> jvmOptions, Path logDir, String name, Path nodeDirectory) throws IOException {
        ClientProcess c = launch(List.of(), jvmOptions, Workers.class, logDir, name, nodeDirectory);
        try {
            c.awaitReady();
        } catch (RuntimeException | Error e) {
            try {
                c.close();
            } catch (RuntimeException | Error cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
        return c;
    }

    /**
     * Starts a worker process on a node without waiting for it (see {@link #awaitReady()}), so
     * that several can start at once.
     *
     * @param worker the worker main class ({@link Workers} or {@link RemoteWorkers}: one command
     *     line in, one reply line starting with {@link Workers#REPLY} out)
     * @param logDir where its log goes
     * @param name a name for logs and messages
     * @param nodeDirectory the node to join ({@code SOFTCMI_NODE})
     * @return the starting client
     * @throws IOException if it cannot be started
     */
    static ClientProcess launch(Class<?> worker, Path logDir, String name, Path nodeDirectory) throws IOException {
        return launch(List.of(), worker, logDir, name, nodeDirectory);
    }

    /**
     * Starts a worker process through a command prefix (for example {@code nsenter} into a
     * network namespace, see {@link NetworkNamespaces}) without waiting for it.
     *
     * @param prefix words before {@code java}; empty for none
     * @param worker the worker main class
     * @param logDir where its log goes
     * @param name a name for logs and messages
     * @param nodeDirectory the node to join ({@code SOFTCMI_NODE})
     * @return the starting client
     * @throws IOException if it cannot be started
     */
    static ClientProcess launch(List<String> prefix, Class<?> worker, Path logDir, String name, Path nodeDirectory)
            throws IOException {
        return launch(prefix, List.of(), worker, logDir, name, nodeDirectory);
    }

    /**
     * Starts a worker process with JVM options (system properties) on a node without waiting for it.
     *
     * @param jvmOptions options before the main class
     * @param worker the worker main class
     * @param logDir where its log goes
     * @param name a name for logs and messages
     * @param nodeDirectory the node to join ({@code SOFTCMI_NODE})
     * @return the starting client
     * @throws IOException if it cannot be started
     */
    static ClientProcess launchWithOptions(List<String> jvmOptions, Class<?> worker, Path logDir, String name, Path nodeDirectory)
            throws IOException {
        return launch(List.of(), jvmOptions, worker, logDir, name, nodeDirectory);
    }

    private static ClientProcess launch(List<String> prefix, List<String> jvmOptions, Class<?> worker, Path logDir, String name,
            Path nodeDirectory) throws IOException {
        Files.createDirectories(logDir);
        Process p = ChildJvm.start(prefix, worker, jvmOptions, List.of(name),
            Map.of("SOFTCMI_NODE", nodeDirectory.toString()));
        return new ClientProcess(name, p, new OutputCapture(name, p.getInputStream(),
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
     * Sends a command and returns what follows {@code expectedWord} in its reply.
     *
     * @param command a worker command line
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
            String shown = command.length() > 80 ? command.substring(0, 80) + "..." : command;
            throw new AssertionError(name + ": '" + shown + "' answered '" + reply + "', expected "
                + expectedWord + " (log: " + log() + ")");
        }
        return reply.substring(expectedWord.length() + 1);
    }

    /** @return its name */
    String name() {
        return name;
    }

    /**
     * Sends a command and waits for its reply.
     *
     * @param command a {@link Workers} command line
     * @return the reply, without the reply prefix
     */
    String request(String command) {
        return request(command, REPLY_TIMEOUT);
    }

    /**
     * Sends a command and waits for its reply.
     *
     * @param command a {@link Workers} command line
     * @param timeout how long to wait for the reply (scaled)
     * @return the reply, without the reply prefix
     */
    String request(String command, Duration timeout) {
        send(command);
        return awaitReply(Deadline.in(timeout));
    }

    /**
     * Sends a command without waiting for its reply (see {@link #awaitReply(Duration)}).
     *
     * @param command a {@link Workers} command line
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
        return output.awaitLine("reply from " + name, l -> l.startsWith(Workers.REPLY), deadline)
            .substring(Workers.REPLY.length());
    }

    /** @return the process id */
    long pid() {
        return process.pid();
    }

    /** @return whether it runs */
    boolean isAlive() {
        return process.isAlive();
    }

    /** @return its log file */
    Path log() {
        return output.log();
    }

    /** Kills the process with SIGKILL ({@code kill -9}) and waits until it is gone. */
    void kill() {
        process.destroyForcibly();
        awaitExit(EXIT_TIMEOUT);
    }

    /**
     * Waits for the process to exit.
     *
     * @param timeout how long at most (scaled)
     * @return its exit status
     */
    int awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(Deadline.scaled(timeout).toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError(name + " still running after " + timeout + " (log: " + log() + ")");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
        output.drain();
        return process.exitValue();
    }

    /**
     * Asks the process to close its context and exit, and waits for that.
     *
     * @return its exit status
     */
    int exit() {
        String reply = request("exit");
        if (!reply.equals("BYE")) {
            throw new AssertionError(name + " could not exit cleanly: " + reply + " (log: " + log() + ")");
        }
        return awaitExit(EXIT_TIMEOUT);
    }

    /** Ends the process: closing its stdin makes it exit; if it does not, it is killed. */
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

    @Override
    public String toString() {
        return "client " + name + " (pid " + process.pid() + ")";
    }
}
