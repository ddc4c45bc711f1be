package io.softcmi.node;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Configuration of one node daemon, as given to {@code cmid}. Fluent setters, defaults, and
 * one {@link #conclude()} that validates everything before the node starts.
 */
public final class NodeConfig {
    private Path directory;
    private Path shmDirectory;
    private String name;
    private String listenHost = "127.0.0.1";
    private int listenPort;
    private Path clusterKeyFile;
    private long memoryBytes;
    private int maxSegments = 4096;
    private int maxExports = 4096;
    private int maxImports = 4096;
    private int maxTokens = 65536;
    private int maxTokensPerSegment = 1024;
    private long defaultCacheBytes = 64L << 20;
    private int ioThreads;
    private long ticketLifetimeMs = 24L * 3600 * 1000;
    private long suspectAfterMs = 1000;
    private long deadAfterMs = 5000;
    private long revokeDrainMs = 2000;
    private volatile int boundListenPort = -1;
    private String group;
    private java.nio.file.attribute.GroupPrincipal groupPrincipal;
    private String advertiseHost;
    private int advertisePort;
    private String metricsHost;
    private int metricsPort = -1;
    private io.softcmi.wire.ClusterTls tls;
    private boolean peerProcesses;

    /** @param dir node directory (socket, lock, state) @return this */
    public NodeConfig directory(Path dir) { this.directory = dir; return this; }
    /** @param dir where segment files live (default {@code /dev/shm/softcmi-NAME}) @return this */
    public NodeConfig shmDirectory(Path dir) { this.shmDirectory = dir; return this; }
    /** @param n node name (default: directory name) @return this */
    public NodeConfig name(String n) { this.name = n; return this; }
    /** @param host listen host for peers and remote data @param port port, 0 = any @return this */
    public NodeConfig listen(String host, int port) { this.listenHost = host; this.listenPort = port; return this; }
    /** @param file cluster key file @return this */
    public NodeConfig clusterKeyFile(Path file) { this.clusterKeyFile = file; return this; }
    /** @param bytes CMI memory configured ({@code max_mem_cfg}); 0 = half the shm file system @return this */
    public NodeConfig memoryBytes(long bytes) { this.memoryBytes = bytes; return this; }
    /** @param n most segments ({@code seg_get} gives NOMEM beyond; default 4096) @return this */
    public NodeConfig maxSegments(int n) { this.maxSegments = n; return this; }
    /** @param n most exports ({@code max_exp_segs}; {@code seg_exp} gives NOMEM beyond; default 4096) @return this */
    public NodeConfig maxExports(int n) { this.maxExports = n; return this; }
    /** @param n most imports ({@code max_imp_segs}; {@code seg_imp} gives NOMEM beyond; default 4096) @return this */
    public NodeConfig maxImports(int n) { this.maxImports = n; return this; }
    /** @param n most access tokens of the node ({@code max_acc_toks}; default 65536) @return this */
    public NodeConfig maxTokens(int n) { this.maxTokens = n; return this; }
    /** @param n most access tokens of one segment ({@code max_acc_stok}; default 1024) @return this */
    public NodeConfig maxTokensPerSegment(int n) { this.maxTokensPerSegment = n; return this; }
    /** @param n data-path I/O threads ({@code --io-threads}); 0 = one per four cores, at least two, at most eight @return this */
    public NodeConfig ioThreads(int n) { this.ioThreads = n; return this; }
    /** @param t TLS for peer and data connections ({@code --tls-keystore}), null for plain TCP @return this */
    public NodeConfig tls(io.softcmi.wire.ClusterTls t) { this.tls = t; return this; }
    /** @param ms lifetime of the node tickets this node issues ({@code --ticket-lifetime SECONDS}; default 24 h) @return this */
    public NodeConfig ticketLifetimeMs(long ms) { this.ticketLifetimeMs = ms; return this; }
    /** @param ms heartbeat silence after which a peer node is suspected ({@code --suspect-after MS}; default 1000) @return this */
    public NodeConfig suspectAfterMs(long ms) { this.suspectAfterMs = ms; return this; }
    /** @param ms heartbeat silence after which a peer node is declared dead ({@code --dead-after MS}; default 5000) @return this */
    public NodeConfig deadAfterMs(long ms) { this.deadAfterMs = ms; return this; }
    /**
     * @param ms how long {@code tok_del} waits for the requests admitted under the token before
     *     it cuts the connections whose streamed store or large read waits on a client, and how
     *     long it then waits for them to close ({@link AccessGate#drain}; default 2000)
     * @return this
     */
    public NodeConfig revokeDrainMs(long ms) { this.revokeDrainMs = ms; return this; }
    /**
     * @param host host other nodes reach this one at ({@code --advertise HOST[:PORT]}): a name
     *     (resolved once, at start) or an address; null = the listen host, or an interface
     *     address when that is a wildcard
     * @param port advertised port, 0 = the listen port
     * @return this
     */
    public NodeConfig advertise(String host, int port) { this.advertiseHost = host; this.advertisePort = port; return this; }
    /** @param host metrics HTTP host ({@code --metrics HOST:PORT}) @param port its port, 0 = any @return this */
    public NodeConfig metrics(String host, int port) { this.metricsHost = host; this.metricsPort = port; return this; }

    /** @return node directory */ public Path directory() { return directory; }
    /** @return shm directory */ public Path shmDirectory() { return shmDirectory; }
    /** @return node name */ public String name() { return name; }
    /** @return listen host */ public String listenHost() { return listenHost; }
    /** @return listen port */ public int listenPort() { return listenPort; }
    /** @return cluster key file or null */ public Path clusterKeyFile() { return clusterKeyFile; }
    /** @return configured memory */ public long memoryBytes() { return memoryBytes; }
    /** @return most segments */ public int maxSegments() { return maxSegments; }
    /** @return most exports */ public int maxExports() { return maxExports; }
    /** @return most imports */ public int maxImports() { return maxImports; }
    /** @return most tokens */ public int maxTokens() { return maxTokens; }
    /** @return most tokens per segment */ public int maxTokensPerSegment() { return maxTokensPerSegment; }
    /** @return default remote cache size */ public long defaultCacheBytes() { return defaultCacheBytes; }
    /** @return TLS for peer and data connections, or null for plain TCP */ public io.softcmi.wire.ClusterTls tls() { return tls; }
    /** @return data-path I/O threads, 0 = the default */ public int ioThreads() { return ioThreads; }
    /** @return node ticket lifetime in milliseconds */ public long ticketLifetimeMs() { return ticketLifetimeMs; }
    /** @return heartbeat silence (ms) after which a peer is suspected */ public long suspectAfterMs() { return suspectAfterMs; }
    /** @return heartbeat silence (ms) after which a peer is declared dead */ public long deadAfterMs() { return deadAfterMs; }
    /** @return the bound (ms) of each of {@code tok_del}'s two waits for admitted requests */ public long revokeDrainMs() { return revokeDrainMs; }
    /** @param port the port the listener got (set once the node listens) */ void boundListenPort(int port) { this.boundListenPort = port; }
    /** @return the port the listener got, or the configured one before it listens */ public int boundListenPort() { return boundListenPort < 0 ? listenPort : boundListenPort; }
    /** @param allow serve process-service and registry requests of peer daemons ({@code --peer-processes yes}; default no) @return this */
    public NodeConfig peerProcesses(boolean allow) { this.peerProcesses = allow; return this; }
    /** @return whether peers may start processes here and use the registry */ public boolean peerProcesses() { return peerProcesses; }
    /** @param name OS group whose members may use the node ({@code --group}), null = owner only @return this */
    public NodeConfig group(String name) { this.group = name; return this; }
    /** @return the group name, or null */ public String group() { return group; }
    /** @return the group, looked up by {@link #conclude()}, or null */ java.nio.file.attribute.GroupPrincipal groupPrincipal() { return groupPrincipal; }
    /** @return advertised host as given, or null */ public String advertiseHost() { return advertiseHost; }
    /** @return advertised port, 0 = the listen port */ public int advertisePort() { return advertisePort; }
    /** @return metrics host, or null when there is no metrics endpoint */ public String metricsHost() { return metricsHost; }
    /** @return metrics port (0 = any) */ public int metricsPort() { return metricsPort; }

    /**
     * Validates the configuration and fills in defaults.
     *
     * @return this
     * @throws IllegalArgumentException if something is missing or out of range
     */
    public NodeConfig conclude() {
        if (directory == null) {
            throw new IllegalArgumentException("a node directory (--dir) is required");
        }
        directory = directory.toAbsolutePath().normalize();
        if (name == null || name.isBlank()) {
            name = directory.getFileName() == null ? "node" : directory.getFileName().toString();
        }
        if (!name.matches("[A-Za-z0-9._-]{1,64}")) {
            throw new IllegalArgumentException("node name must be 1-64 of [A-Za-z0-9._-]: " + name);
        }
        if (shmDirectory == null) {
            Path shm = Path.of("/dev/shm");
            shmDirectory = (Files.isDirectory(shm) ? shm : directory).resolve("softcmi-" + name + "-" + Integer.toHexString(directory.hashCode()));
        }
        shmDirectory = shmDirectory.toAbsolutePath().normalize();
        if (listenPort < 0 || listenPort > 65535) {
            throw new IllegalArgumentException("listen port out of range: " + listenPort);
        }
        if (memoryBytes < 0) {
            throw new IllegalArgumentException("memory must not be negative: " + memoryBytes);
        }
        if (memoryBytes == 0) {
            memoryBytes = defaultMemory(shmDirectory.getParent());
        }
        memoryBytes -= memoryBytes % 4096;
        if (group != null && !group.isBlank()) {
            groupPrincipal = NodeGroup.lookup(directory, group);
        }
        if (advertisePort < 0 || advertisePort > 65535) {
            throw new IllegalArgumentException("advertised port out of range: " + advertisePort);
        }
        if (metricsHost != null && (metricsPort < 0 || metricsPort > 65535)) {
            throw new IllegalArgumentException("metrics port out of range: " + metricsPort);
        }
        if (suspectAfterMs < 40 || deadAfterMs < suspectAfterMs) {
            throw new IllegalArgumentException("need 40 <= --suspect-after <= --dead-after (ms): " + suspectAfterMs + ", "
                + deadAfterMs);
        }
        if (revokeDrainMs < 1 || revokeDrainMs > 600_000) {
            throw new IllegalArgumentException("revoke drain must be within [1, 600000] ms: " + revokeDrainMs);
        }
        if (ticketLifetimeMs < 1000) {
            throw new IllegalArgumentException("ticket lifetime must be at least one second: " + ticketLifetimeMs + " ms");
        }
        if (ioThreads < 0 || ioThreads > 64) {
            throw new IllegalArgumentException("io threads must be within [0, 64]: " + ioThreads);
        }
        if (maxSegments <= 0 || maxExports <= 0 || maxImports <= 0 || maxTokens <= 0 || maxTokensPerSegment <= 0) {
            throw new IllegalArgumentException("the most segments, exports, imports, tokens and tokens per segment must "
                + "be positive");
        }
        return this;
    }

    private static long defaultMemory(Path fsPath) {
        try {
            Path p = fsPath;
            while (p != null && !Files.exists(p)) {
                p = p.getParent();
            }
            return p == null ? 1L << 30 : Files.getFileStore(p).getTotalSpace() / 2;
        } catch (IOException e) {
            return 1L << 30;
        }
    }
}
