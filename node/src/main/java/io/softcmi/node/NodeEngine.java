package io.softcmi.node;

import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiEventType;
import io.softcmi.cmi.internal.NodeAddressImpl;
import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.PeerMessage;
import io.softcmi.wire.ProcessMessage;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
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
 */
public final class NodeEngine {
    private static final System.Logger LOG = System.getLogger("io.softcmi.node");
    private final ReentrantLock lock = new ReentrantLock();
    /** The daemon's user: the only one its process service starts or ends processes for. */
    private static final String OWNER = System.getProperty("user.name");
    private final NodeState state;
    private final SegmentService segments;
    private final ReservationService reservations;
    private final AdminService admin;
    private final TokenService tokens;
    private final ImportService imports;
    private final PeerClient peers;
    private final PeerMessages messages;
    private final FailureEvents failures;
    private final PeerMonitor monitor;
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
        this.messages = new PeerMessages(peers);
        this.imports = new ImportService(state, lock, peers, messages);
        this.failures = new FailureEvents(state);
        this.monitor = new PeerMonitor(state, lock, failures, peers, config.suspectAfterMs(), config.deadAfterMs());
        this.admin = new AdminService(state, monitor::peers);
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
            return m;
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
            return forward(s, f);
        }
        ControlMessage service = services(s.user, request);
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
        lock.lock();
        try {
            if (!state.sessions.containsKey(s.id)) {
                throw new NodeException(CmiError.INIT, "session has ended");
            }
            return dispatch(s, request);
        } catch (NodeException e) {
            return new ControlMessage.ErrorReply(e.error().ordinal(), e.getMessage());
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "request " + request.type() + " failed", e);
            return new ControlMessage.ErrorReply(CmiError.INVAL.ordinal(), "node failed: " + e);
        } finally {
            lock.unlock();
        }
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

    /**
     * The process service and the node registry: their own locks, never the engine's (starting
     * a process may take a while).
     *
     * @return the reply, or null if the request is not theirs
     */
    private ControlMessage services(String user, ControlMessage request) {
        try {
            if ((request instanceof ProcessMessage.ProcSpawn || request instanceof ProcessMessage.ProcKill)
                    && !OWNER.equals(user)) {
                // A member of --group must not run or end commands as the daemon's user.
                throw NodeException.perm("only " + OWNER + " (the daemon's user) may start or end processes here");
            }
            return switch (request) {
                case ProcessMessage.ProcSpawn r -> state.processes.spawn(r);
                case ProcessMessage.ProcKill r -> state.processes.kill(r);
                case ProcessMessage.ProcStatus r -> state.processes.status(r);
                case ProcessMessage.RegPut r -> state.registry.put(r);
                case ProcessMessage.RegGet r -> state.registry.get(r);
                case ProcessMessage.RegDelete r -> state.registry.delete(r);
                case ProcessMessage.RegNext r -> state.registry.next(r);
                default -> null;
            };
        } catch (NodeException e) {
            return new ControlMessage.ErrorReply(e.error().ordinal(), e.getMessage());
        }
    }

    /**
     * {@link ProcessMessage.Forward}: a process-service or registry request for a peer daemon,
     * passed on over the authenticated peer connection (never under the engine lock), or served
     * here if it names this node.
     */
    private ControlMessage forward(Session s, ProcessMessage.Forward f) {
        try {
            ControlMessage inner = f.request();
            if (!forwardable(inner)) {
                throw NodeException.inval("cannot forward " + inner.type());
            }
            NodeAddressImpl peer = FailureEvents.address(f.node());
            if (peer == null) {
                throw NodeException.inval("forward: not a node address");
            }
            if (java.util.Arrays.equals(peer.nodeId(), state.address.nodeId())) {
                ControlMessage local = services(s.user, inner);
                return local != null ? local : peerList(inner);
            }
            if (!OWNER.equals(s.user)) {
                throw NodeException.perm("only " + OWNER + " (the daemon's user) may use peer daemons' processes");
            }
            return peers.call(peer, inner);
        } catch (NodeException e) {
            return new ControlMessage.ErrorReply(e.error().ordinal(), e.getMessage());
        } catch (io.softcmi.wire.WireFormatException e) {
            return new ControlMessage.ErrorReply(CmiError.INVAL.ordinal(), "forward: " + e.getMessage());
        }
    }

    private static boolean forwardable(ControlMessage m) {
        return switch (m) {
            case ProcessMessage.ProcSpawn r -> true;
            case ProcessMessage.ProcKill r -> true;
            case ProcessMessage.ProcStatus r -> true;
            case ProcessMessage.RegPut r -> true;
            case ProcessMessage.RegGet r -> true;
            case ProcessMessage.RegDelete r -> true;
            case ProcessMessage.RegNext r -> true;
            case ControlMessage.AdminList r -> r.table().equals("sessions") || r.table().equals("runs");
            default -> false;
        };
    }

    /** {@code cmiadm sessions} and {@code runs} for a forwarded request (own monitors, no engine lock). */
    private ControlMessage peerList(ControlMessage m) {
        if (m instanceof ControlMessage.AdminList r) {
            return r.table().equals("runs") ? state.processes.table() : state.registry.table("session", "SESSION");
        }
        throw NodeException.inval("cannot forward " + m.type());
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
            case ControlMessage.TokDel r -> tokens.tokDel(s, r);
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
        if (forwardable(request)) {
            if (!state.config.peerProcesses()) {
                LOG.log(System.Logger.Level.WARNING, "refused a peer's {0}: this node does not serve peer processes "
                    + "(--peer-processes no)", request.type());
                return new ControlMessage.ErrorReply(CmiError.PERM.ordinal(),
                    "node " + state.config.name() + " does not serve peers' process requests (cmid --peer-processes no)");
            }
            try {
                ControlMessage local = services(OWNER, request);
                return local != null ? local : peerList(request);
            } catch (NodeException e) {
                return new ControlMessage.ErrorReply(e.error().ordinal(), e.getMessage());
            }
        }
        lock.lock();
        try {
            byte[] claimed = switch (request) {
                case PeerMessage.PeerImport r -> r.importer();
                case PeerMessage.PeerUnimport r -> r.importer();
                case PeerMessage.PeerContextDown r -> r.node();
                default -> null;
            };
            if (claimed != null && !speaksForItself(claimed, peerNodeId)) {
                LOG.log(System.Logger.Level.WARNING, "refused a peer request that names another node as importer");
                throw NodeException.perm("a peer may only import for itself");
            }
            return switch (request) {
                case PeerMessage.PeerImport r -> new ControlMessage.SegmentReply(imports.homeImport(r));
                case PeerMessage.PeerUnimport r -> {
                    imports.homeUnimport(r);
                    yield new ControlMessage.Ok();
                }
                case PeerMessage.PeerDescribe r -> {
                    Segment seg = state.segments.get(r.segId());
                    if (seg == null || seg.id != r.generation()) {
                        throw NodeException.inval("segment " + r.segId() + " no longer exists at its home");
                    }
                    yield new ControlMessage.SegmentReply(seg.describe());
                }
                case PeerMessage.PeerContextDown r -> {
                    failures.contextEnded(FailureEvents.address(r.node()), r.contextId(), r.died(), r.segmentIds(), true);
                    yield new ControlMessage.Ok();
                }
                default -> throw NodeException.inval("not a peer request: " + request.type());
            };
        } catch (NodeException e) {
            return new ControlMessage.ErrorReply(e.error().ordinal(), e.getMessage());
        } finally {
            lock.unlock();
        }
    }

    private static boolean speaksForItself(byte[] importerAddress, byte[] peerNodeId) {
        try {
            return java.util.Arrays.equals(((io.softcmi.cmi.internal.NodeAddressImpl) io.softcmi.cmi.internal.HandleCodec.nodeAddress(importerAddress)).nodeId(), peerNodeId);
        } catch (RuntimeException malformed) {
            return false;
        }
    }

    private ControlMessage info() {
        NodeConfig c = state.config;
        long exported = state.segments.values().stream().filter(seg -> seg.everExported && !seg.marked()).count();
        return new ControlMessage.LongsValue(new long[] {
            state.memory.available(), state.memory.configured(), state.memory.configured(), c.maxExports(),
            c.maxImports(), c.maxImports(), c.maxTokens(), c.maxTokensPerSegment(), exported, state.proxies.size(),
            SegmentService.CACHE_LINE, 64L << 20, SegmentService.PAGE, SegmentService.PAGE, SegmentService.PAGE,
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
        lock.lock();
        try {
            if (state.sessions.get(s.id) == null) {
                return;
            }
            contextEnded(s);
            state.cacheReports.contextEnded(s);
            state.sessions.remove(s.id);
            for (long attachId : s.attachments.keySet()) {
                state.coherence.localDetached(attachId);
            }
            for (long segId : new ArrayList<>(s.attachments.values())) {
                Proxy p = state.proxies.get(segId);
                if (p != null) {
                    imports.release(p);
                } else {
                    segments.release(state.segments.get(segId));
                }
            }
            imports.closeSession(s);
            state.notifications.sessionClosed(s);
            s.attachments.clear();
            for (long segId : new ArrayList<>(s.created)) {
                Segment seg = state.segments.get(segId);
                if (seg != null) {
                    segments.mark(seg);
                }
            }
            state.exports.values().removeIf(e -> e.session() == s.id);
        } finally {
            lock.unlock();
        }
    }

    /**
     * A session is ending (under the lock, before its segments are marked): the events this
     * node owes for it, and the peers that must hear of it ({@link PeerMessage.PeerContextDown}),
     * told in the background.
     */
    private void contextEnded(Session s) {
        boolean died = !s.leftCleanly;
        List<Long> created = new ArrayList<>(s.created);
        java.util.Set<NodeAddressImpl> tell = new java.util.LinkedHashSet<>();
        for (NodeState.HomeImport i : state.homeImports) {
            Segment seg = state.segments.get(i.segmentId());
            NodeAddressImpl a = FailureEvents.address(i.importer());
            if (seg != null && seg.creatorSession == s.id && a != null) {
                tell.add(a);
            }
        }
        for (Proxy p : state.proxies.values()) {
            if ((p.importerSession == s.id || s.attachments.containsValue(p.id)) && !p.homeDown) {
                tell.add(p.home);
            }
        }
        tell.removeIf(a -> java.util.Arrays.equals(a.nodeId(), state.address.nodeId()));
        failures.contextEnded(state.address, s.id, died, created, s.ticketIssued);
        if (tell.isEmpty()) {
            return;
        }
        PeerMessage.PeerContextDown down = new PeerMessage.PeerContextDown(state.address.toBytes(), s.id, died, created);
        for (NodeAddressImpl peer : tell) {
            messages.send(peer, down); // before the unimports of its proxies, which follow in order
        }
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
