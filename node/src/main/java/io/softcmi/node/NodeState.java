package io.softcmi.node;

import io.softcmi.cmi.internal.NodeAddressImpl;
import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The node's tables: sessions, segments, exports, reservations, memory. Everything here is
 * guarded by {@link NodeEngine}'s lock; the data path never touches it.
 */
final class NodeState {
    final NodeConfig config;
    final NodeAddressImpl address;
    final MemoryAccount memory;
    final SecureRandom random = new SecureRandom();
    final Map<Long, Session> sessions = new LinkedHashMap<>();
    final Map<Long, Segment> segments = new LinkedHashMap<>();
    final Map<Long, Export> exports = new LinkedHashMap<>();
    final Map<Long, MemoryReservation> reservations = new LinkedHashMap<>();
    /** Proxies of segments homed elsewhere (imports), by their node-scope id. */
    final Map<Long, Proxy> proxies = new LinkedHashMap<>();
    /** Imports of this node's segments by other nodes (or by this node's own proxies). */
    final java.util.List<HomeImport> homeImports = new java.util.ArrayList<>();
    /** Exported segments, for the data path (read without the lock). */
    final java.util.concurrent.ConcurrentHashMap<Long, RemoteTarget> targets = new java.util.concurrent.ConcurrentHashMap<>();
    /** Access tokens, for the data path (read without the lock). */
    final java.util.concurrent.ConcurrentHashMap<Long, HomeToken> tokens = new java.util.concurrent.ConcurrentHashMap<>();
    final ClusterKey clusterKey;
    /** TLS for peer and data connections, or null (plain TCP). */
    final io.softcmi.wire.ClusterTls tls;
    /** Counters of the remote data path (updated by its I/O loops without the lock). */
    final DataPathStats dataStats = new DataPathStats();
    /** Client cache figures: their names, sums, and the counters of ended contexts ({@code cmiadm caches}, metrics). */
    final CacheReports cacheReports = new CacheReports();
    /** Who caches which lines of this node's segments (coherent caches; read without the lock). */
    final CoherenceDirectory coherence = new CoherenceDirectory();
    /** Contexts of other nodes known to have ended, and those of nodes declared dead: refused from now on (read without the lock). */
    final EndedWriters endedWriters = new EndedWriters();
    /** Each remote context's data connections by number, so that a new one supersedes the one it replaces (read without the lock). */
    final ConnectionLineage lineage = new ConnectionLineage();
    /** Remote stores started and not finished, by writing context (read without the lock). */
    final WritesInFlight writes = new WritesInFlight(endedWriters::ended);
    /** Ranges in flux, by segment id (cmi(7) "Consistent data"). */
    final Map<Long, FluxRanges> flux = new LinkedHashMap<>();
    /** Creators of segments, for notifications (read without the lock). */
    final NotificationService notifications;
    /** Processes started for clients ({@code cmiadm runs}). */
    final ProcessService processes;
    /** Records and counters clients keep in the node ({@code cmiadm sessions}). */
    final NodeRegistry registry = new NodeRegistry();
    private long nextTokenId = 1;
    /**
     * Session (context) ids differ between incarnations of a daemon (its node id stays): a home
     * that remembers a context of this node as ended must not refuse a new one with the same id.
     */
    private long nextSessionId = System.currentTimeMillis() * 1000;
    private long nextSegmentId = 1;
    private long nextAttachId = 1;
    private long nextExportId = 1;

    /** A proxy at another node (or this one) of one of this node's segments. */
    record HomeImport(long segmentId, byte[] importer, long proxyId, boolean writeThrough, long importerContext) {
    }

    /** One {@code seg_exp} of a segment. */
    record Export(long id, long segmentId, long session, boolean writeThrough, byte[] handle) {
    }

    NodeState(NodeConfig config, NodeAddressImpl address, ClusterKey clusterKey) {
        this.processes = new ProcessService(config.directory() == null ? null : config.directory().toAbsolutePath().toString());
        this.config = config;
        this.address = address;
        this.clusterKey = clusterKey;
        this.tls = config.tls();
        this.memory = new MemoryAccount(config.memoryBytes());
        this.notifications = new NotificationService(address);
    }

    long newSessionId() { return nextSessionId++; }
    long newSegmentId() { return nextSegmentId++; }
    long newAttachId() { return nextAttachId++; }
    long newExportId() { return nextExportId++; }
    long newTokenId() { return nextTokenId++; }

    /** @return a random reservation key; never 0, which means "no reservation" */
    long newReservationKey() {
        long k;
        do {
            k = random.nextLong() & Long.MAX_VALUE;
        } while (k == 0 || reservations.containsKey(k));
        return k;
    }

    /**
     * The segment, if the session created it.
     *
     * @param id segment id
     * @param s the calling session
     * @param action what the caller wants to do, for the message ("remove it")
     * @return the segment
     * @throws NodeException INVAL if unknown, PERM if another process created it
     */
    Segment createdBy(long id, Session s, String action) {
        Segment seg = segment(id);
        if (seg.creatorSession != s.id) {
            throw NodeException.perm("only the process that created segment " + seg.id + " may " + action);
        }
        return seg;
    }

    Segment segment(long id) {
        Segment s = segments.get(id);
        if (s == null) {
            throw NodeException.inval("no segment " + id + " on this node");
        }
        return s;
    }
}
