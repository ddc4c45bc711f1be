package io.softcmi.node;

import io.softcmi.cmi.internal.NodeAddressImpl;
import io.softcmi.wire.PeerMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Ends a session for the engine: drops its attaches, marks the segments it created, raises the
 * events this node owes for it and tells the peers that shared segments with it.
 */
final class SessionEnd {
    private final NodeState state;
    private final ReentrantLock lock;
    private final SegmentService segments;
    private final ImportService imports;
    private final FailureEvents failures;
    private final PeerMessages messages;

    SessionEnd(NodeState state, ReentrantLock lock, SegmentService segments, ImportService imports,
            FailureEvents failures, PeerMessages messages) {
        this.state = state;
        this.lock = lock;
        this.segments = segments;
        this.imports = imports;
        this.failures = failures;
        this.messages = messages;
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
            if (s.cacheReport != null) {
                state.memory.cacheHeld(s.cacheReport.memoryBytes(), 0); // its caches went with it
            }
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
}
