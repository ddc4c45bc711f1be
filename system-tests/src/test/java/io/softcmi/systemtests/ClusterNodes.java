package io.softcmi.systemtests;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Several {@code cmid} daemons on loopback that form a cluster: each listens on
 * {@code 127.0.0.1:<any port>} and reads the same cluster key file (32 random bytes, mode 0600),
 * so they trust each other; {@link #startWithKey} starts a daemon with another key. Also opens
 * what runs on those nodes: contexts of this JVM ({@link #context}, each on a thread of its own)
 * and worker processes ({@link #clients}).
 *
 * <p>Owns everything it started and closes it in order (contexts, clients, daemons, key files),
 * even after a failure. Register it with {@link SystemTestResources#own} through {@link #create}.
 */
final class ClusterNodes implements AutoCloseable {
    /** {@code Cmi.init} reads the node from this property; threads of this JVM take turns setting it. */
    private static final String NODE_PROPERTY = "softcmi.node";
    private static final Object NODE_PROPERTY_LOCK = new Object();
    private static final Pattern ADDRESS = Pattern.compile("\\(address [0-9a-fA-F]+@(.+):(\\d+)\\)");
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);

    private final SystemTestResources resources;
    private final Path keyDirectory;
    private final Path clusterKey;
    private final Map<String, NodeProcess> nodes = new LinkedHashMap<>();
    private final List<ClientProcess> clients = new ArrayList<>();
    private final List<ContextThread> contexts = new ArrayList<>();
    private int keyFiles;
    private int clientCount;
    private int contextCount;

    private ClusterNodes(SystemTestResources resources, Path keyDirectory) throws IOException {
        this.resources = resources;
        this.keyDirectory = keyDirectory;
        this.clusterKey = newKeyFile();
    }

    /**
     * Makes a cluster owned by {@code resources} (closed after the test or class).
     *
     * @param resources the test's resources
     * @return an empty cluster with a fresh cluster key
     * @throws IOException if the key cannot be written
     */
    static ClusterNodes create(SystemTestResources resources) throws IOException {
        Path dir = Files.createTempDirectory("softcmi-keys-",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        try {
            return resources.own(new ClusterNodes(resources, dir));
        } catch (IOException | RuntimeException e) {
            Files2.deleteTree(dir);
            throw e;
        }
    }

    /**
     * Writes a new random key file, readable by its owner only.
     *
     * @return the file
     * @throws IOException if it cannot be written
     */
    Path newKeyFile() throws IOException {
        Path f = keyDirectory.resolve("cluster-" + (++keyFiles) + ".key");
        Files.createFile(f, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        Files.write(f, key);
        return f;
    }

    /** @return the key file every daemon started by {@link #start} reads */
    Path clusterKey() {
        return clusterKey;
    }

    /**
     * Starts daemons with the cluster key, all at once, and waits until each serves.
     *
     * @param names node names
     * @return the nodes, in the order of {@code names}
     * @throws IOException if one cannot be started
     */
    List<NodeProcess> start(String... names) throws IOException {
        List<NodeProcess> started = new ArrayList<>();
        for (String name : names) {
            started.add(launch(name, clusterKey));
        }
        for (NodeProcess n : started) {
            n.awaitReady();
        }
        return started;
    }

    /**
     * Starts one daemon that reads {@code keyFile} as its cluster key.
     *
     * @param name node name
     * @param keyFile its cluster key
     * @return the running node
     * @throws IOException if it cannot be started
     */
    NodeProcess startWithKey(String name, Path keyFile) throws IOException {
        NodeProcess n = launch(name, keyFile);
        n.awaitReady();
        return n;
    }

    /**
     * Starts one daemon with the cluster key and more {@code cmid} options.
     *
     * @param name node name
     * @param options extra command-line options
     * @return the running node
     * @throws IOException if it cannot be started
     */
    NodeProcess startWithOptions(String name, String... options) throws IOException {
        NodeProcess n = launch(name, clusterKey, options);
        n.awaitReady();
        return n;
    }

    /**
     * Starts one daemon with the cluster key through a command prefix (for example inside a
     * network namespace, {@link NetworkNamespaces#enter}), with no {@code --listen} of its own:
     * {@code options} say where it listens.
     *
     * @param prefix words before {@code java}
     * @param name node name
     * @param options command-line options, {@code --listen} among them
     * @return the running node
     * @throws IOException if it cannot be started
     */
    NodeProcess startIn(List<String> prefix, String name, String... options) throws IOException {
        if (nodes.containsKey(name)) {
            throw new IllegalArgumentException("node " + name + " exists");
        }
        Path dir = Files.createTempDirectory("softcmi-node-");
        List<String> args = new ArrayList<>(List.of("--cluster-key", clusterKey.toString()));
        args.addAll(List.of(options));
        NodeProcess n = NodeProcess.launch(prefix, resources.logDir(), name, dir, true, args.toArray(String[]::new));
        nodes.put(name, n);
        n.awaitReady();
        return n;
    }

    /**
     * Starts a worker process ({@link RemoteWorkers}) on a node through a command prefix, waits
     * until it has its context and enables CMI on its command thread.
     *
     * @param prefix words before {@code java}
     * @param node the node it joins
     * @return the client
     * @throws IOException if it cannot be started
     */
    ClientProcess clientIn(List<String> prefix, NodeProcess node) throws IOException {
        ClientProcess c = ClientProcess.launch(prefix, RemoteWorkers.class, resources.logDir(),
            "w" + (++clientCount) + "-" + node.directory().getFileName(), node.directory());
        clients.add(c);
        c.awaitReady();
        c.expect("enable", "OK");
        return c;
    }

    private NodeProcess launch(String name, Path keyFile, String... options) throws IOException {
        if (nodes.containsKey(name)) {
            throw new IllegalArgumentException("node " + name + " exists");
        }
        Path dir = Files.createTempDirectory("softcmi-node-");
        List<String> args = new ArrayList<>(List.of("--listen", "127.0.0.1:0", "--cluster-key", keyFile.toString()));
        args.addAll(List.of(options));
        NodeProcess n = NodeProcess.launch(resources.logDir(), name, dir, true, args.toArray(String[]::new));
        nodes.put(name, n);
        return n;
    }

    /**
     * The TCP port a daemon listens on for peers and remote data, from its ready line
     * ({@code cmid: node N serving DIR (address ID@HOST:PORT)}).
     *
     * @param node a running node of this cluster
     * @return its port
     */
    static int port(NodeProcess node) {
        String log = log(node);
        Matcher m = ADDRESS.matcher(log.substring(0, Math.max(0, log.indexOf('\n'))));
        if (!m.find()) {
            throw new AssertionError("no address in the ready line of " + node + " (log: " + node.log() + ")");
        }
        return Integer.parseInt(m.group(2));
    }

    /**
     * @param node a node
     * @return its 128-bit node id, as it keeps it in {@code DIR/node-id}
     */
    static byte[] nodeId(NodeProcess node) {
        try {
            return HexFormat.of().parseHex(Files.readString(node.directory().resolve("node-id")).strip());
        } catch (IOException e) {
            throw new AssertionError("cannot read the node id of " + node, e);
        }
    }

    /**
     * What a daemon printed since its ready line. (A log file of a failed run is kept, and the
     * next run of the same test appends to it: this run's part starts at the last ready line.)
     *
     * @param node a node that is ready
     * @return its log from the ready line on
     */
    static String log(NodeProcess node) {
        String all;
        try {
            all = Files.readString(node.log(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new AssertionError("cannot read the log of " + node, e);
        }
        int ready = all.lastIndexOf("cmid: node ");
        if (ready < 0) {
            throw new AssertionError("no ready line in the log of " + node + " (" + node.log() + ")");
        }
        return all.substring(ready);
    }

    /**
     * Waits until a daemon's log contains {@code fragment}.
     *
     * @param node the node
     * @param fragment text to find
     * @param timeout how long at most (scaled)
     * @return the log
     */
    static String awaitLog(NodeProcess node, String fragment, Duration timeout) {
        Deadline deadline = Deadline.in(timeout);
        while (true) {
            String log = log(node);
            if (log.contains(fragment)) {
                return log;
            }
            if (deadline.expired()) {
                throw new AssertionError("log of " + node + " does not mention '" + fragment + "' within " + timeout
                    + " (log: " + node.log() + ")");
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
        }
    }

    /**
     * Opens a context on a node, on a thread of its own; closed with the cluster unless the
     * caller closes it first.
     *
     * @param node the node its process joins
     * @return the context thread
     */
    ContextThread context(NodeProcess node) {
        ContextThread t = openContext(node, "context-" + (++contextCount) + "-on-" + node.directory().getFileName());
        contexts.add(t);
        return t;
    }

    /**
     * Opens a context of this JVM on {@code node}: {@code Cmi.init} picks the node from the system
     * property {@value #NODE_PROPERTY} when it runs, so the property is set around the call (and
     * put back after), one opener at a time.
     *
     * @param node the node
     * @param threadName the context thread's name
     * @return the context thread; the caller closes it
     */
    static ContextThread openContext(NodeProcess node, String threadName) {
        synchronized (NODE_PROPERTY_LOCK) {
            String before = System.getProperty(NODE_PROPERTY);
            System.setProperty(NODE_PROPERTY, node.directory().toString());
            try {
                return ContextThread.open(threadName);
            } finally {
                if (before == null) {
                    System.clearProperty(NODE_PROPERTY);
                } else {
                    System.setProperty(NODE_PROPERTY, before);
                }
            }
        }
    }

    /**
     * Starts one worker process on each of {@code onNodes}, all at once, waits until each has
     * its context, and enables CMI ({@code cmi_enb}) on its command thread.
     *
     * @param onNodes where each runs
     * @return the clients, in the same order
     * @throws IOException if one cannot be started
     */
    List<ClientProcess> clients(NodeProcess... onNodes) throws IOException {
        return clients(List.of(), onNodes);
    }

    /**
     * {@link #clients(NodeProcess...)} with JVM options (system properties) for each.
     *
     * @param jvmOptions options before the main class
     * @param onNodes the node of each client
     * @return the clients, ready and enabled
     * @throws IOException if one cannot be started
     */
    List<ClientProcess> clients(List<String> jvmOptions, NodeProcess... onNodes) throws IOException {
        List<ClientProcess> started = new ArrayList<>();
        for (NodeProcess n : onNodes) {
            ClientProcess c = ClientProcess.launchWithOptions(jvmOptions, RemoteWorkers.class, resources.logDir(),
                "w" + (++clientCount) + "-" + n.directory().getFileName(), n.directory());
            clients.add(c);
            started.add(c);
        }
        for (ClientProcess c : started) {
            c.awaitReady();
            c.expect("enable", "OK");
        }
        return started;
    }

    @Override
    public void close() throws IOException {
        Throwable problem = null;
        for (int i = contexts.size() - 1; i >= 0; i--) {
            problem = attempt(problem, contexts.get(i)::close);
        }
        contexts.clear();
        for (ClientProcess c : clients) {
            problem = attempt(problem, c::close);
        }
        clients.clear();
        for (NodeProcess n : nodes.values()) {
            problem = attempt(problem, n::close);
        }
        nodes.clear();
        Files2.deleteTree(keyDirectory);
        if (problem instanceof IOException e) {
            throw e;
        }
        if (problem instanceof RuntimeException e) {
            throw e;
        }
        if (problem instanceof Error e) {
            throw e;
        }
        if (problem != null) {
            throw new IOException("cluster cleanup failed", problem);
        }
    }

    private interface Step {
        void run() throws Exception;
    }

    private static Throwable attempt(Throwable problem, Step step) {
        try {
            step.run();
            return problem;
        } catch (Exception | Error e) {
            if (problem == null) {
                return e;
            }
            problem.addSuppressed(e);
            return problem;
        }
    }
}
