package io.softcmi.node;

import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiEventType;
import io.softcmi.cmi.internal.NodeAddressImpl;
import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.ProcessMessage;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The CMI system of one node: the tables and rules behind every control call, shared by the
 * daemon {@code cmid} and the embedded node.
 *
 * <p>Concurrency: control calls are rare next to loads and stores, so one lock guards all node
 * state and every request runs under it, start to end; loads and stores of local segments never
 * come here (they go to the mapping). Notices to processes are queued to each session's
 * {@link SessionWriter} and never block the engine (only the shutdown notice is written at once).
 * {@code tok_del} revokes under the lock and waits for the remote requests admitted under the
 * token before it ({@link AccessGate}) after releasing it.
 */
public final class NodeEngine {
    private static final System.Logger LOG = System.getLogger("io.softcmi.node");
    private final ReentrantLock lock = new ReentrantLock();
    private final NodeState state;
    private final SegmentService segments;
    private final ReservationService reservations;
    private final AdminService admin;
    private final TokenService tokens;
    private final ImportService imports;
    private final PeerClient peers;
    private final FailureEvents failures;
    private final PeerMonitor monitor;
    private final ProcessRequests processes;
    private final PeerRequests peerRequests;
    private final SessionEnd sessionEnd;
    private boolean shutDown;

    /**
     * Creates the engine.
     *
     * @param config a concluded configuration
     * @param address this node's address
     * @param clusterKey the key shared with peer nodes
     */
    NodeEngine(NodeConfig config, NodeAddressImpl address, ClusterKey clusterKey) {
        this.state = new NodeState(config, address, clusterKey);
        this.segments = new SegmentService(state);
        this.reservations = new ReservationService(state);
        this.tokens = new TokenService(state);
        this.peers = new PeerClient(state);
        PeerMessages messages = new PeerMessages(peers);
        this.imports = new ImportService(state, lock, peers, messages);
        this.failures = new FailureEvents(state);
        this.monitor = new PeerMonitor(state, lock, failures, peers, config.suspectAfterMs(), config.deadAfterMs());
        this.admin = new AdminService(state, monitor::peers);
        this.processes = new ProcessRequests(state, peers);
        this.peerRequests = new PeerRequests(state, lock, imports, failures, processes);
        this.sessionEnd = new SessionEnd(state, lock, segments, imports, failures, messages);
    }

    /** Starts the failure detector (a node that listens for peers watches them). */
    void startFailureDetector() {
        monitor.start();
    }

    /**
     * What the node believes of a peer (for tests and tools).
     *
     * @param nodeHex the peer's node id in hex
     * @return UP, SUSPECT or DEAD, or null if the peer is not watched
     */
    String peerHealth(String nodeHex) {
        PeerMonitor.Health h = monitor.health(nodeHex);
        return h == null ? null : h.name();
    }

    /**
     * One peer for the metrics: the failure detector's view and the relationships with it.
     *
     * @param view what the detector believes
     * @param importsFrom proxies here of its segments
     * @param exportsTo its imports of this node's segments
     */
    record PeerFigures(PeerMonitor.PeerView view, long importsFrom, long exportsTo) {
    }

    /**
     * The peers the failure detector watches (and those recently declared dead), with the
     * relationships with each, for the metrics endpoint; read under the lock.
     *
     * @return one entry per peer
     */
    java.util.List<PeerFigures> peerFigures() {
        java.util.List<PeerMonitor.PeerView> views = monitor.peers();
        lock.lock();
        try {
            java.util.List<PeerFigures> out = new java.util.ArrayList<>();
            for (PeerMonitor.PeerView v : views) {
                long[] links = admin.links(v.peer());
                out.add(new PeerFigures(v, links[0], links[1]));
            }
            return out;
        } finally {
            lock.unlock();
        }
    }

    /**
     * @return the ids of the segments this node homes now (read under the lock)
     */
    java.util.Set<Long> segmentIds() {
        lock.lock();
        try {
            return new java.util.HashSet<>(state.segments.keySet());
        } finally {
            lock.unlock();
        }
    }

    /**
     * Counts of the node's tables, for the metrics endpoint, read under the lock.
     *
     * @return name to value, in a fixed order
     */
    java.util.Map<String, Long> tableFigures() {
        lock.lock();
        try {
            var m = new java.util.LinkedHashMap<String, Long>();
            m.put("contexts", (long) state.sessions.size());
            m.put("segments", (long) state.segments.size());
            m.put("exports", (long) state.exports.size());
            m.put("imports", (long) state.proxies.size());
            m.put("home_imports", (long) state.homeImports.size());
            m.put("tokens", (long) state.tokens.size());
            m.put("reservations", (long) state.reservations.size());
            m.put("memory_configured_bytes", state.memory.configured());
            m.put("memory_available_bytes", state.memory.available());
            m.put("memory_client_caches_bytes", state.memory.caches());
            return m;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes a context's latest cache figures ({@code CACHE_REPORT}, one-way): they replace the
     * last, and the memory its caches hold is charged to the node's CMI memory in place of what
     * the last report said ({@link MemoryAccount}). A report that arrives after its session
     * ended is dropped.
     *
     * @param s the reporting session
     * @param report its figures
     */
    void cacheReported(Session s, ControlMessage.CacheReport report) {
        lock.lock();
        try {
            if (state.sessions.get(s.id) != s) {
                return;
            }
            ControlMessage.CacheReport last = s.cacheReport;
            state.memory.cacheHeld(last == null ? 0 : last.memoryBytes(), report.memoryBytes());
            s.cacheReport = report;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The client cache figures of the node's contexts, node totals for the metrics, read under
     * the lock.
     *
     * @return the totals
     */
    CacheReports.Totals cacheTotals() {
        lock.lock();
        try {
            return state.cacheReports.totals(state.sessions.values());
        } finally {
            lock.unlock();
        }
    }

    NodeState state() {
        return state;
    }

    /** @return this node's address */
    public NodeAddressImpl address() {
        return state.address;
    }

    /** @return the configuration */
    public NodeConfig config() {
        return state.config;
    }

    Session openSession(ControlMessage.Hello hello, String user, Session.Notifier notifier) {
        lock.lock();
        try {
            if (shutDown) {
                throw new NodeException(CmiError.INIT, "node is shutting down");
            }
            Session s = new Session(state.newSessionId(), hello.pid(), user, hello.processName(), hello.apiVersion(),
                notifier);
            state.sessions.put(s.id, s);
            return s;
        } finally {
            lock.unlock();
        }
    }

    ControlMessage.HelloReply helloReply(Session s) {
        return new ControlMessage.HelloReply(s.id, state.address.toBytes(), state.config.name(), SegmentService.CACHE_LINE);
    }

    /**
     * Serves one request of a session.
     *
     * @param s the session
     * @param request the request
     * @return the reply; failures become {@link ControlMessage.ErrorReply}
     */
    ControlMessage handle(Session s, ControlMessage request) {
        if (request instanceof ControlMessage.ImportStatus r) {
            // May ask the home: must not hold the lock across the network.
            try {
                return imports.status(r, Math.max(200, (int) Math.min(2_000, state.config.suspectAfterMs())));
            } catch (NodeException e) {
                return new ControlMessage.ErrorReply(e.error().ordinal(), e.getMessage());
            }
        }
        if (request instanceof ProcessMessage.Forward f) {
            return processes.forward(s, f);
        }
        ControlMessage service = processes.serve(s.user, request);
        if (service != null) {
            return service;
        }
        if (request instanceof ControlMessage.SegImport r) {
            // Talks to the home node: must not hold the lock across the network.
            try {
                return imports.segImport(s, r);
            } catch (NodeException e) {
                return new ControlMessage.ErrorReply(e.error().ordinal(), e.getMessage());
            }
        }
        AccessGate revoked;
        lock.lock();
        try {
            if (!state.sessions.containsKey(s.id)) {
                throw new NodeException(CmiError.INIT, "session has ended");
            }
            if (!(request instanceof ControlMessage.TokDel r)) {
                return dispatch(s, request);
            }
            revoked = tokens.tokDel(s, r);
        } catch (NodeException e) {
            return new ControlMessage.ErrorReply(e.error().ordinal(), e.getMessage());
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "request " + request.type() + " failed", e);
            return new ControlMessage.ErrorReply(CmiError.INVAL.ordinal(), "node failed: " + e);
        } finally {
            lock.unlock();
        }
        // tok_del replies once the requests admitted under the token are done; waits without the lock.
        return tokens.drained(revoked);
    }

    /**
     * A one-way notification from a process of this node (notification extension): delivered to
     * the segment's creator without the engine lock, or dropped if the creator is gone.
     *
     * @param n the request
     */
    void notifyLocal(ControlMessage.Notify n) {
        state.notifications.deliverLocal(n);
    }

    private ControlMessage dispatch(Session s, ControlMessage request) {
        return switch (request) {
            case ControlMessage.SegGet r -> segments.segGet(s, r);
            case ControlMessage.SegLookup r -> state.proxies.containsKey(r.segId())
                ? state.proxies.get(r.segId()).describe() : segments.lookup(r);
            case ControlMessage.SegAttach r -> state.proxies.containsKey(r.segId())
                ? imports.attach(s, state.proxies.get(r.segId())) : segments.attach(s, r);
            case ControlMessage.SegDetach r -> detach(s, r);
            case ControlMessage.SegRemove r -> state.proxies.containsKey(r.segId())
                ? imports.remove(s, state.proxies.get(r.segId())) : segments.remove(s, r);
            case ControlMessage.TokNew r -> tokens.tokNew(s, r);
            case ControlMessage.SegSetToken r -> imports.setToken(s, r);
            case ControlMessage.TlsTrustRequest r -> new ControlMessage.BytesValue(
                state.tls == null ? new byte[0] : state.tls.trust());
            case ControlMessage.TicketRequest r -> {
                // The ticket, then its session key: the process proves the key to every home.
                byte[] ticket = state.clusterKey.issueTicket(state.address.nodeId(), s.id);
                s.ticketIssued = true;
                byte[] key = state.clusterKey.sessionKey(ticket);
                byte[] both = java.util.Arrays.copyOf(ticket, ticket.length + key.length);
                System.arraycopy(key, 0, both, ticket.length, key.length);
                yield new ControlMessage.BytesValue(both);
            }
            case ControlMessage.SegBreak r -> segments.setBreak(s, r);
            case ControlMessage.SegExport r -> segments.export(s, r);
            case ControlMessage.RsegDelete r -> segments.deleteHandle(s, r);
            case ControlMessage.SegRecovery r -> recovery(s, r);
            case ControlMessage.CacheRsegSet r -> state.proxies.containsKey(r.segId())
                ? proxyCacheSet(s, state.proxies.get(r.segId()), r.bytes()) : segments.cacheSet(s, r);
            case ControlMessage.CacheRsegGet r -> state.proxies.containsKey(r.segId())
                ? proxyCacheGet(state.proxies.get(r.segId())) : segments.cacheGet(s, r);
            case ControlMessage.CtlInfo r -> info();
            case ControlMessage.MemReserve r -> reservations.reserve(s, r);
            case ControlMessage.MemReserveDelete r -> reservations.deleteOwn(s);
            case ControlMessage.MemReserveSet r -> reservations.set(s, r);
            case ControlMessage.AdminDeleteReservation r -> reservations.deleteByKey(s, r.key());
            case ControlMessage.AdminList r -> admin.list(r.table());
            case ControlMessage.CmapGet r -> connectivityMap(s, r);
            default -> throw NodeException.inval("not a request: " + request.type());
        };
    }

    private ControlMessage proxyCacheSet(Session s, Proxy p, long bytes) {
        if (bytes < 0) {
            throw NodeException.inval("cache size must not be negative");
        }
        if (p.importerSession != s.id) {
            throw NodeException.perm("only the process that imported segment " + p.id + " may size its cache");
        }
        p.cacheBytes = bytes;
        return new ControlMessage.Ok();
    }

    private ControlMessage proxyCacheGet(Proxy p) {
        Session importer = state.sessions.get(p.importerSession);
        long dflt = importer != null && importer.defaultCacheBytes >= 0 ? importer.defaultCacheBytes
            : state.config.defaultCacheBytes();
        return new ControlMessage.LongValue(p.cacheBytes >= 0 ? p.cacheBytes : dflt);
    }

    private ControlMessage detach(Session s, ControlMessage.SegDetach r) {
        Long segId = s.attachments.get(r.attachId());
        if (segId != null && state.proxies.containsKey(segId)) {
            s.attachments.remove(r.attachId());
            imports.release(state.proxies.get(segId));
            return new ControlMessage.Ok();
        }
        return segments.detach(s, r);
    }

    /**
     * Serves a request of an authenticated peer daemon. A peer may only speak for itself: the
     * importer a request names must be the node that proved the cluster key on this connection.
     *
     * @param request the request
     * @param peerNodeId the node id the peer proved
     * @return the reply
     */
    ControlMessage handlePeer(ControlMessage request, byte[] peerNodeId) {
        return peerRequests.handle(request, peerNodeId);
    }

    private ControlMessage info() {
        NodeConfig c = state.config;
        long exported = state.segments.values().stream().filter(seg -> seg.everExported && !seg.marked()).count();
        return new ControlMessage.LongsValue(new long[] {
            state.memory.available(), state.memory.configured(), state.memory.configured(), c.maxExports(),
            c.maxImports(), c.maxImports(), c.maxTokens(), c.maxTokensPerSegment(), exported, state.proxies.size(),
            SegmentService.CACHE_LINE, SegmentService.MAX_RECO_SEGSZ, SegmentService.PAGE, SegmentService.PAGE, SegmentService.PAGE,
            2L << 20});
    }

    private ControlMessage connectivityMap(Session s, ControlMessage.CmapGet r) {
        if (r.requestId() == 0) {
            throw NodeException.inval("request id 0 is reserved for unsolicited connectivity maps");
        }
        // Always delivered, one per request: the suspected or dead peers this context shares segments with.
        s.notifier.send(new ControlMessage.EventNotice(CmiEventType.CMAP.ordinal(), r.requestId(), List.of(),
            failures.disconnectedFor(s), 0, List.of()));
        return new ControlMessage.Ok();
    }

    /**
     * A session ended (its process detached from CMI or died): its attaches are dropped and the
     * segments it created are marked for deletion; reservations stay.
     *
     * @param s the session
     */
    void closeSession(Session s) {
        sessionEnd.closeSession(s);
    }

    /** {@code CMI_SEG_CHECK} and {@code CMI_SEG_RECO}: the creator's view of the ranges in flux. */
    private ControlMessage recovery(Session s, ControlMessage.SegRecovery r) {
        segments.recovery(s, r); // the checks: creator, whole lines within the segment
        Segment seg = state.segments.get(r.segId());
        FluxRanges f = state.flux.get(seg.id);
        long end = r.offset() + r.length();
        if (!r.recover()) {
            long[] lowest = f == null ? null : f.lowest(r.offset(), end);
            return lowest == null ? new ControlMessage.RangeReply(false, 0, 0)
                : new ControlMessage.RangeReply(true, lowest[0], lowest[1] - lowest[0]);
        }
        if (f != null) {
            f.remove(r.offset(), end);
            failures.publishFlux(seg);
        }
        return new ControlMessage.Ok();
    }

    /**
     * Stops the node: ends the processes it started for clients ({@link ProcessService}), tells
     * every process, then deletes every segment file.
     */
    public void shutdown() {
        monitor.close();
        state.processes.shutdown();
        lock.lock();
        try {
            if (shutDown) {
                return;
            }
            shutDown = true;
            for (Session s : state.sessions.values()) {
                s.notifier.sendNow(new ControlMessage.NodeShutdown("node " + state.config.name() + " is shutting down"));
            }
            for (Segment seg : state.segments.values()) {
                seg.file.delete();
            }
            state.segments.clear();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Runs a read-only look at the tables under the lock, for tests and tools.
     *
     * @return number of segments the node holds (not yet reclaimed)
     */
    public int segmentCount() {
        lock.lock();
        try {
            return state.segments.size();
        } finally {
            lock.unlock();
        }
    }
}
