package io.softcmi.node;

import io.softcmi.cmi.internal.NodeAddressImpl;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;

/**
 * A running node: owns its directory (by an exclusive lock, so two daemons never share one),
 * its shared-memory directory, the engine and the control socket. Used by {@code cmid} and by
 * the embedded node alike.
 *
 * <p>Directory layout: {@code cmid.lock} (held while running), {@code cmid.sock} (control
 * socket, 0600), {@code cmid.pid}, {@code node-id} (the node's 128-bit id, kept across restarts).
 */
public final class NodeDaemon implements AutoCloseable {
    /** Lock file name. */
    public static final String LOCK_NAME = "cmid.lock";
    private static final System.Logger LOG = System.getLogger("io.softcmi.node");

    private final NodeConfig config;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final NodeEngine engine;
    private final ControlServer control;
    private final RemoteServer remote;
    private final MetricsServer metrics;
    private boolean closed;

    private NodeDaemon(NodeConfig config, FileChannel lockChannel, FileLock lock, NodeEngine engine,
            ControlServer control, RemoteServer remote, MetricsServer metrics) {
        this.config = config;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.engine = engine;
        this.control = control;
        this.remote = remote;
        this.metrics = metrics;
    }

    /**
     * Starts a node.
     *
     * @param config the configuration (concluded here)
     * @return the running node
     * @throws IOException if the directories or socket cannot be set up
     * @throws IllegalStateException if another daemon owns the directory
     */
    public static NodeDaemon start(NodeConfig config) throws IOException {
        config.conclude();
        Path dir = config.directory();
        Files.createDirectories(dir);
        NodeGroup.apply(dir, config.groupPrincipal(), true);
        FileChannel lockChannel = FileChannel.open(dir.resolve(LOCK_NAME), StandardOpenOption.CREATE,
            StandardOpenOption.WRITE);
        FileLock lock = lockChannel.tryLock();
        if (lock == null) {
            lockChannel.close();
            throw new IllegalStateException("another cmid owns " + dir);
        }
        try {
            Path shm = config.shmDirectory();
            deleteTree(shm); // left over by a daemon that was killed: we hold the lock now
            Files.createDirectories(shm);
            NodeGroup.apply(shm, config.groupPrincipal(), true);
            ClusterKey key = ClusterKey.load(config.clusterKeyFile(), config.ticketLifetimeMs());
            RemoteServer remote = new RemoteServer(config.listenHost(), config.listenPort());
            config.boundListenPort(remote.port());
            String advertised = AdvertisedAddress.choose(config.listenHost(), config.advertiseHost());
            int advertisedPort = config.advertisePort() == 0 ? remote.port() : config.advertisePort();
            NodeAddressImpl address = new NodeAddressImpl(nodeId(dir), advertised, advertisedPort);
            NodeEngine engine = new NodeEngine(config, address, key);
            remote.start(engine, engine.state());
            engine.startFailureDetector();
            ControlServer control = new ControlServer(engine, dir.resolve("cmid.sock"));
            NodeGroup.apply(dir.resolve("cmid.sock"), config.groupPrincipal(), false);
            MetricsServer metrics = config.metricsHost() == null ? null
                : new MetricsServer(config.metricsHost(), config.metricsPort(), engine);
            Files.writeString(dir.resolve("cmid.pid"), ProcessHandle.current().pid() + "\n");
            io.softcmi.cmi.internal.SoftcmiLogging.nodeName(config.name());
            LOG.log(Level.INFO, "node {0} up: dir {1}, shm {2}, {3,number,#} bytes of CMI memory, listening on {4}, advertised as {5}{6}",
                config.name(), dir, shm, config.memoryBytes(), config.listenHost() + ":" + remote.port(), address,
                config.advertiseHost() != null && !AdvertisedAddress.isLiteral(config.advertiseHost())
                    ? " (" + config.advertiseHost() + " resolved once)" : "");
            return new NodeDaemon(config, lockChannel, lock, engine, control, remote, metrics);
        } catch (IOException | RuntimeException e) {
            lock.release();
            lockChannel.close();
            throw e;
        }
    }

    private static byte[] nodeId(Path dir) throws IOException {
        Path f = dir.resolve("node-id");
        if (Files.exists(f)) {
            byte[] id = java.util.HexFormat.of().parseHex(Files.readString(f).strip());
            if (id.length == NodeAddressImpl.ID_LENGTH) {
                return id;
            }
        }
        byte[] id = new byte[NodeAddressImpl.ID_LENGTH];
        new SecureRandom().nextBytes(id);
        Files.writeString(f, java.util.HexFormat.of().formatHex(id) + "\n");
        return id;
    }

    /** @return the engine */
    public NodeEngine engine() {
        return engine;
    }

    /** @return the port of the metrics endpoint, or -1 when there is none */
    public int metricsPort() {
        return metrics == null ? -1 : metrics.port();
    }

    /** @return the configuration */
    public NodeConfig config() {
        return config;
    }

    /** Shuts the node down: processes are told, segment files, socket and lock are removed. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        // Stop remote access first: no data session may touch a segment the engine is unmapping.
        remote.close();
        if (metrics != null) {
            metrics.close();
        }
        engine.shutdown();
        control.close();
        try {
            deleteTree(config.shmDirectory());
            Files.deleteIfExists(config.directory().resolve("cmid.pid"));
            lock.release();
            lockChannel.close();
            Files.deleteIfExists(config.directory().resolve(LOCK_NAME));
        } catch (IOException e) {
            LOG.log(Level.WARNING, "cleanup of node {0} incomplete: {1}", config.name(), e.getMessage());
        }
        LOG.log(Level.INFO, "node {0} down", config.name());
    }

    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        // Only JDK classes here: this runs at shutdown, when our own jar may have been replaced.
        try (var paths = Files.walk(root)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
