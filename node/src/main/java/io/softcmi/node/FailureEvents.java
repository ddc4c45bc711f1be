package io.softcmi.node;

import io.softcmi.cmi.CmiEventType;
import io.softcmi.cmi.SegFlag;
import io.softcmi.cmi.internal.HandleCodec;
import io.softcmi.cmi.internal.NodeAddressImpl;
import io.softcmi.wire.ControlMessage;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * What the node does when a peer node or a context fails (cmi(7) "Error Handling", "CMI
 * Events", "Event Ordering", "Consistent data"): the events each affected context receives, in
 * the spec's order, and the state changes behind them. Every method runs under the engine's
 * lock; events are queued to the sessions' writers and never block.
 *
 * <ul>
 * <li>A peer <b>suspected</b> (the {@link PeerMonitor} missed its heartbeats): every context that
 *     exports to it or imports from it gets an unsolicited {@code CMAP} listing it; then the
 *     creator of each of this node's segments the peer imported gets {@code QUIESCE} (the
 *     segment refuses attaches with RECONFIG), and each importer of a segment homed at the peer
 *     gets {@code QUIESCE} for its proxy.</li>
 * <li>The peer <b>answers again</b>: a new unsolicited {@code CMAP}, then {@code RESUME} for what
 *     was quiesced.</li>
 * <li>The peer <b>declared dead</b>: importers get {@code HCTXT_DOWN} (no RESUME follows) and every
 *     process of the node is told that the home is dead (access gives SINVAL); creators get
 *     {@code RCTXT_DOWN} for the peer's contexts, with what they may have left half-written put
 *     in flux first, then {@code RESUME} for the quiesced segments.</li>
 * <li>A <b>context ended</b> (this node's or a peer's): creators of segments it imported get
 *     {@code RCTXT_DOWN}, importers of segments it created get {@code HCTXT_DOWN}; if it died
 *     (no {@code fini}), its cached lines that may be dirty and its stores in flight are in flux.</li>
 * </ul>
 */
final class FailureEvents {
    private static final System.Logger LOG = System.getLogger("io.softcmi.node");
    private final NodeState state;
    /** Why each quiesced home segment is quiesced: the suspected peers (node id hex) that import it. */
    private final Map<Long, Set<String>> quiescedBy = new HashMap<>();
    /** Peers (node id hex) that are disconnected: suspected or dead. */
    private final Map<String, NodeAddressImpl> disconnected = new LinkedHashMap<>();

    FailureEvents(NodeState state) {
        this.state = state;
    }

    // ---- who relates to whom ----

    /** @return the peers this node must watch: homes of its proxies and importers of its segments */
    Set<NodeAddressImpl> watchedPeers() {
        Set<NodeAddressImpl> out = new LinkedHashSet<>();
        for (Proxy p : state.proxies.values()) {
            if (!p.homeDown && !isSelf(p.home)) {
                out.add(p.home);
            }
        }
        for (NodeState.HomeImport i : state.homeImports) {
            NodeAddressImpl a = address(i.importer());
            if (a != null && !isSelf(a)) {
                out.add(a);
            }
        }
        return out;
    }

    /** The peers a session relates to: homes of what it imported, importers of what it created. */
    private Set<NodeAddressImpl> peersOf(Session s) {
        Set<NodeAddressImpl> out = new LinkedHashSet<>();
        for (Proxy p : state.proxies.values()) {
            if (p.importerSession == s.id && !isSelf(p.home)) {
                out.add(p.home);
            }
        }
        for (NodeState.HomeImport i : state.homeImports) {
            Segment seg = state.segments.get(i.segmentId());
            NodeAddressImpl a = address(i.importer());
            if (seg != null && seg.creatorSession == s.id && a != null && !isSelf(a)) {
                out.add(a);
            }
        }
        return out;
    }

    /**
     * The nodes disconnected from a context's point of view ({@code CMI_CTL_NODE_CMAP_GET}):
     * suspected or dead peers it exports to or imports from.
     *
     * @param s the context
     * @return their address bytes
     */
    List<byte[]> disconnectedFor(Session s) {
        List<byte[]> out = new ArrayList<>();
        for (NodeAddressImpl a : peersOf(s)) {
            if (disconnected.containsKey(hex(a))) {
                out.add(a.toBytes());
            }
        }
        // Dead homes whose proxies this context still holds stay disconnected.
        for (Proxy p : state.proxies.values()) {
            if (p.importerSession == s.id && p.homeDown && out.stream().noneMatch(b -> Arrays.equals(b, p.home.toBytes()))) {
                out.add(p.home.toBytes());
            }
        }
        return out;
    }

    // ---- peers ----

    /** The monitor stopped hearing from {@code peer}: CMAP, then QUIESCE. */
    void peerSuspected(NodeAddressImpl peer) {
        String hex = hex(peer);
        disconnected.put(hex, peer);
        LOG.log(Level.WARNING, "peer node {0} is suspected (no heartbeat): its segments are quiesced", peer);
        sendMaps(relatedTo(peer));
        Map<Long, List<Long>> homeQuiesce = new LinkedHashMap<>();
        for (NodeState.HomeImport i : state.homeImports) {
            Segment seg = state.segments.get(i.segmentId());
            if (seg == null || !sameNode(i.importer(), peer)) {
                continue;
            }
            Set<String> why = quiescedBy.computeIfAbsent(seg.id, k -> new HashSet<>());
            if (why.isEmpty() && seg.state == Segment.ACTIVE) {
                seg.state = Segment.QUIESCED;
                homeQuiesce.computeIfAbsent(seg.creatorSession, k -> new ArrayList<>()).add(seg.id);
            }
            why.add(hex);
        }
        Map<Long, List<Long>> importQuiesce = new LinkedHashMap<>();
        for (Proxy p : state.proxies.values()) {
            if (sameId(p.home, peer) && !p.homeDown && !p.quiesced) {
                p.quiesced = true;
                importQuiesce.computeIfAbsent(p.importerSession, k -> new ArrayList<>()).add(p.id);
            }
        }
        send(homeQuiesce, CmiEventType.QUIESCE, null, 0);
        send(importQuiesce, CmiEventType.QUIESCE, null, 0);
    }

    /** The suspected peer answers again: CMAP, then RESUME. */
    void peerRecovered(NodeAddressImpl peer) {
        disconnected.remove(hex(peer));
        LOG.log(Level.INFO, "peer node {0} answers again: its segments resume", peer);
        sendMaps(relatedTo(peer));
        send(resumeHome(hex(peer)), CmiEventType.RESUME, null, 0);
        Map<Long, List<Long>> importResume = new LinkedHashMap<>();
        for (Proxy p : state.proxies.values()) {
            if (sameId(p.home, peer) && p.quiesced) {
                p.quiesced = false;
                importResume.computeIfAbsent(p.importerSession, k -> new ArrayList<>()).add(p.id);
            }
        }
        send(importResume, CmiEventType.RESUME, null, 0);
    }

    /** The suspected peer is declared dead: HCTXT_DOWN / RCTXT_DOWN, flux, RESUME at the home. */
    void peerDead(NodeAddressImpl peer) {
        String hex = hex(peer);
        disconnected.put(hex, peer);
        LOG.log(Level.WARNING, "peer node {0} is declared dead", peer);
        // Importer side: the home and every context on it are gone; no RESUME follows.
        Map<List<Long>, List<Long>> homeDown = new LinkedHashMap<>(); // (importer session, home context) -> proxies
        for (Proxy p : state.proxies.values()) {
            if (sameId(p.home, peer) && !p.homeDown) {
                p.homeDown = true;
                p.quiesced = false;
                homeDown.computeIfAbsent(List.of(p.importerSession, p.homeContext), k -> new ArrayList<>()).add(p.id);
            }
        }
        if (!homeDown.isEmpty()) {
            ControlMessage.HomeDownNotice notice = new ControlMessage.HomeDownNotice(peer.toBytes());
            for (Session s : state.sessions.values()) {
                s.notifier.send(notice);
            }
        }
        for (Map.Entry<List<Long>, List<Long>> e : homeDown.entrySet()) {
            send(e.getKey().get(0), CmiEventType.HCTXT_DOWN, e.getValue(), peer, e.getKey().get(1));
        }
        // Home side: every context of the peer that imported from here is down.
        Set<Long> contexts = new LinkedHashSet<>();
        for (NodeState.HomeImport i : state.homeImports) {
            if (sameNode(i.importer(), peer)) {
                contexts.add(i.importerContext());
            }
        }
        // Its contexts are ended before their stores are taken (as for one context): a store of
        // theirs that would start after the take is refused, and their open connections close.
        state.endedWriters.nodeDeclaredDead(hex);
        putInFlux(state.coherence.dropHolders(peer.nodeId(), -1), state.writes.takeForNode(hex));
        for (long ctx : contexts) {
            remoteContextDown(peer, ctx, i -> sameNode(i.importer(), peer) && i.importerContext() == ctx);
        }
        state.homeImports.removeIf(i -> sameNode(i.importer(), peer));
        send(resumeHome(hex), CmiEventType.RESUME, null, 0);
    }

    /** @return whether the node regards {@code peer} as disconnected (suspected or dead) */
    boolean isDisconnected(NodeAddressImpl peer) {
        return disconnected.containsKey(hex(peer));
    }

    /** The peer is no longer watched (nothing relates to it any more): forget it. */
    void peerForgotten(NodeAddressImpl peer) {
        disconnected.remove(hex(peer));
    }

    // ---- contexts ----

    /**
     * A context ended: this node's (its session closed) or a peer's (the peer said so).
     *
     * @param node the context's node
     * @param contextId its session id there
     * @param died true if it did not say {@code fini}
     * @param created ids (at {@code node}) of the segments it created
     * @param heldTicket whether it may hold a node ticket (its ticket is then refused from now on)
     */
    void contextEnded(NodeAddressImpl node, long contextId, boolean died, List<Long> created, boolean heldTicket) {
        // Home side: creators of segments it imported.
        WritesInFlight.Writer writer = WritesInFlight.Writer.of(node.nodeId(), contextId);
        // Its ticket dies with it: no data connection may speak for it any more.
        if (heldTicket) {
            long now = System.currentTimeMillis();
            state.endedWriters.contextEnded(writer, now, now + state.config.ticketLifetimeMs());
        }
        Map<Long, List<long[]>> dirty = state.coherence.dropHolders(node.nodeId(), contextId);
        if (died) {
            putInFlux(dirty, state.writes.takeFor(writer));
        } else {
            state.writes.forget(writer);
        }
        remoteContextDown(node, contextId, i -> sameNode(i.importer(), node) && i.importerContext() == contextId);
        if (died) {
            // Its import records go now (the proxies' own unimport may never come).
            state.homeImports.removeIf(i -> sameNode(i.importer(), node) && i.importerContext() == contextId);
        }
        // Importer side: importers of segments it created.
        if (created.isEmpty()) {
            return;
        }
        Map<Long, List<Long>> byImporter = new LinkedHashMap<>();
        for (Proxy p : state.proxies.values()) {
            if (sameId(p.home, node) && created.contains(p.homeSegmentId)) {
                byImporter.computeIfAbsent(p.importerSession, k -> new ArrayList<>()).add(p.id);
            }
        }
        for (Map.Entry<Long, List<Long>> e : byImporter.entrySet()) {
            send(e.getKey(), CmiEventType.HCTXT_DOWN, e.getValue(), node, contextId);
        }
    }

    /** RCTXT_DOWN to each creator, with its segments the matching import records name. */
    private void remoteContextDown(NodeAddressImpl node, long contextId, Predicate<NodeState.HomeImport> which) {
        Map<Long, List<Long>> byCreator = new LinkedHashMap<>();
        for (NodeState.HomeImport i : state.homeImports) {
            Segment seg = state.segments.get(i.segmentId());
            if (seg != null && which.test(i)) {
                List<Long> segs = byCreator.computeIfAbsent(seg.creatorSession, k -> new ArrayList<>());
                if (!segs.contains(seg.id)) {
                    segs.add(seg.id);
                }
            }
        }
        for (Map.Entry<Long, List<Long>> e : byCreator.entrySet()) {
            send(e.getKey(), CmiEventType.RCTXT_DOWN, e.getValue(), node, contextId);
        }
    }

    // ---- flux ----

    /** Puts ranges in flux (whole cache lines), except in segments whose client keeps them consistent. */
    private void putInFlux(Map<Long, List<long[]>> dirtyLines, List<WritesInFlight.Range> torn) {
        Map<Long, List<long[]>> all = new LinkedHashMap<>();
        dirtyLines.forEach((seg, ranges) -> all.computeIfAbsent(seg, k -> new ArrayList<>()).addAll(ranges));
        for (WritesInFlight.Range r : torn) {
            all.computeIfAbsent(r.segmentId(), k -> new ArrayList<>()).add(new long[] {r.start(), r.end()});
        }
        for (Map.Entry<Long, List<long[]>> e : all.entrySet()) {
            Segment seg = state.segments.get(e.getKey());
            if (seg == null || seg.has(SegFlag.CLIENT_CONSIST)) {
                continue;
            }
            FluxRanges f = state.flux.computeIfAbsent(seg.id, k -> new FluxRanges());
            long line = SegmentService.CACHE_LINE;
            for (long[] r : e.getValue()) {
                long start = Math.max(0, r[0] / line * line);
                long end = Math.min(seg.size, (r[1] + line - 1) / line * line);
                f.add(start, end);
            }
            LOG.log(Level.WARNING, "segment {0}: ranges in flux after a remote context failed: {1}", seg.id,
                Arrays.toString(f.snapshot()));
            publishFlux(seg);
        }
    }

    /**
     * Tells the data path and every local process which ranges of a segment are in flux now.
     *
     * @param seg the segment
     */
    void publishFlux(Segment seg) {
        FluxRanges f = state.flux.get(seg.id);
        long[] snapshot = f == null ? new long[0] : f.snapshot();
        if (f != null && f.isEmpty()) {
            state.flux.remove(seg.id);
        }
        RemoteTarget t = state.targets.get(seg.id);
        if (t != null) {
            t.flux = snapshot;
        }
        ControlMessage.FluxNotice notice = new ControlMessage.FluxNotice(seg.id, Arrays.stream(snapshot).boxed().toList());
        for (Session s : state.sessions.values()) {
            s.notifier.send(notice);
        }
    }

    // ---- sending ----

    private Set<Session> relatedTo(NodeAddressImpl peer) {
        Set<Session> out = new LinkedHashSet<>();
        for (Session s : state.sessions.values()) {
            if (peersOf(s).stream().anyMatch(a -> sameId(a, peer))) {
                out.add(s);
            }
        }
        return out;
    }

    private void sendMaps(Set<Session> sessions) {
        for (Session s : sessions) {
            s.notifier.send(new ControlMessage.EventNotice(CmiEventType.CMAP.ordinal(), 0, List.of(), disconnectedFor(s), 0,
                List.of()));
        }
    }

    private Map<Long, List<Long>> resumeHome(String peerHex) {
        Map<Long, List<Long>> resume = new LinkedHashMap<>();
        for (var it = quiescedBy.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Long, Set<String>> e = it.next();
            e.getValue().remove(peerHex);
            if (!e.getValue().isEmpty()) {
                continue;
            }
            it.remove();
            Segment seg = state.segments.get(e.getKey());
            if (seg != null && seg.state == Segment.QUIESCED) {
                seg.state = Segment.ACTIVE;
                resume.computeIfAbsent(seg.creatorSession, k -> new ArrayList<>()).add(seg.id);
            }
        }
        return resume;
    }

    private void send(Map<Long, List<Long>> bySession, CmiEventType type, NodeAddressImpl node, long contextId) {
        for (Map.Entry<Long, List<Long>> e : bySession.entrySet()) {
            send(e.getKey(), type, e.getValue(), node, contextId);
        }
    }

    private void send(long sessionId, CmiEventType type, List<Long> segments, NodeAddressImpl node, long contextId) {
        Session s = state.sessions.get(sessionId);
        if (s == null) {
            return;
        }
        s.notifier.send(new ControlMessage.EventNotice(type.ordinal(), 0, segments,
            node == null ? List.of() : List.of(node.toBytes()), contextId, List.of()));
    }

    private static boolean sameId(NodeAddressImpl a, NodeAddressImpl b) {
        return Arrays.equals(a.nodeId(), b.nodeId());
    }

    private boolean isSelf(NodeAddressImpl a) {
        return Arrays.equals(a.nodeId(), state.address.nodeId());
    }

    private static boolean sameNode(byte[] addressBytes, NodeAddressImpl node) {
        NodeAddressImpl a = address(addressBytes);
        return a != null && Arrays.equals(a.nodeId(), node.nodeId());
    }

    static NodeAddressImpl address(byte[] bytes) {
        try {
            return (NodeAddressImpl) HandleCodec.nodeAddress(bytes);
        } catch (RuntimeException malformed) {
            return null;
        }
    }

    static String hex(NodeAddressImpl a) {
        return java.util.HexFormat.of().formatHex(a.nodeId());
    }
}
