package io.softcmi.node;

import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.internal.HandleCodec;
import io.softcmi.cmi.internal.NodeAddressImpl;
import io.softcmi.cmi.internal.RemoteSegmentHandleImpl;
import io.softcmi.cmi.internal.TokenImpl;
import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.PeerMessage;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Imports (cmi(7) "CMI Segment"): {@code seg_imp} on the importing node, the proxy segments it
 * creates, {@code CMI_SEG_TOKEN}, and the home side of an import ({@link PeerMessage.PeerImport}),
 * which checks the segment still exists, was exported, and is not imported both cached and
 * uncached at once.
 *
 * <p>{@link #segImport} talks to the home node and so runs without the engine's lock around the
 * network call (two nodes importing from each other must not deadlock); everything else runs
 * under it.
 */
final class ImportService {
    private static final System.Logger LOG = System.getLogger("io.softcmi.node");
    private final NodeState state;
    private final ReentrantLock lock;
    private final PeerClient peers;
    private final PeerMessages messages;

    ImportService(NodeState state, ReentrantLock lock, PeerClient peers, PeerMessages messages) {
        this.state = state;
        this.lock = lock;
        this.peers = peers;
        this.messages = messages;
    }

    /** {@code seg_imp}: called without the lock. */
    ControlMessage segImport(Session s, ControlMessage.SegImport r) {
        RemoteSegmentHandleImpl h;
        try {
            h = (RemoteSegmentHandleImpl) HandleCodec.remoteSegmentHandle(r.handle());
        } catch (RuntimeException e) {
            throw NodeException.inval("not a remote segment handle");
        }
        long proxyId;
        lock.lock();
        try {
            if (state.proxies.size() >= state.config.maxImports()) {
                throw NodeException.nomem("the node holds its maximum of " + state.config.maxImports() + " imports");
            }
            proxyId = state.newSegmentId();
        } finally {
            lock.unlock();
        }
        PeerMessage.PeerImport request = new PeerMessage.PeerImport(h.segmentId(), h.generation(),
            h.writeThrough(), state.address.toBytes(), proxyId, s.id);
        io.softcmi.wire.SegmentDescriptor home;
        if (Arrays.equals(h.home().nodeId(), state.address.nodeId())) {
            lock.lock();
            try {
                home = homeImport(request);
            } finally {
                lock.unlock();
            }
        } else {
            ControlMessage reply = peers.call(h.home(), request);
            if (reply instanceof ControlMessage.ErrorReply e) {
                CmiError[] codes = CmiError.values();
                throw new NodeException(e.code() >= 0 && e.code() < codes.length ? codes[e.code()] : CmiError.INVAL,
                    "home node refused the import: " + e.message());
            }
            if (!(reply instanceof ControlMessage.SegmentReply sr)) {
                throw NodeException.inval("home node answered " + reply.type() + " to an import");
            }
            home = sr.segment();
        }
        lock.lock();
        try {
            Proxy p = new Proxy(proxyId, h.home(), h.segmentId(), home.size(), home.flags(), h.writeThrough(), s.id, s.pid,
                home.creatorSession());
            state.proxies.put(proxyId, p);
            if (state.sessions.containsKey(s.id)) {
                s.imported.add(proxyId);
            } else {
                mark(p);
            }
            return p.describe();
        } finally {
            lock.unlock();
        }
    }

    /** The home side of an import (under the lock). */
    io.softcmi.wire.SegmentDescriptor homeImport(PeerMessage.PeerImport r) {
        Segment seg = state.segments.get(r.segId());
        if (seg == null || seg.id != r.generation()) {
            throw NodeException.inval("segment " + r.segId() + " no longer exists at its home");
        }
        if (seg.marked()) {
            throw NodeException.inval("segment " + seg.id + " is marked for deletion at its home");
        }
        if (!seg.everExported) {
            throw NodeException.perm("segment " + seg.id + " was never exported");
        }
        for (NodeState.HomeImport i : state.homeImports) {
            if (i.segmentId() == seg.id && i.writeThrough() != r.writeThrough()) {
                throw NodeException.inval("segment " + seg.id + " is imported " + (i.writeThrough() ? "uncached" : "cached")
                    + " already; cached and uncached imports exclude each other");
            }
        }
        state.homeImports.add(new NodeState.HomeImport(seg.id, r.importer(), r.proxyId(), r.writeThrough(),
            r.importerContext()));
        state.notifications.learnNode(r.importer());
        NodeAddressImpl importer = FailureEvents.address(r.importer());
        if (importer != null) {
            state.endedWriters.nodeImportsAgain(FailureEvents.hex(importer)); // its daemon is back: dead is final for old proxies only
        }
        return seg.describe();
    }

    /** The home side of an import ending (under the lock). */
    void homeUnimport(PeerMessage.PeerUnimport r) {
        state.homeImports.removeIf(i -> i.segmentId() == r.segId() && i.proxyId() == r.proxyId()
            && Arrays.equals(i.importer(), r.importer()));
    }

    /**
     * {@code CMI_SEG_STATUS} of an import (called without the lock): the proxy's own record,
     * with the break and state the home reports; a dead home reads as marked for deletion, a
     * home that does not answer within {@code timeoutMs} leaves the proxy's own view.
     */
    ControlMessage status(ControlMessage.ImportStatus r, int timeoutMs) {
        io.softcmi.wire.SegmentDescriptor mine;
        NodeAddressImpl home;
        long homeId;
        boolean local;
        lock.lock();
        try {
            Proxy p = state.proxies.get(r.segId());
            if (p == null) {
                throw NodeException.inval("segment " + r.segId() + " is not an import of this node");
            }
            mine = p.describe().local();
            if (p.homeDown) {
                return new ControlMessage.SegmentReply(withHome(mine, mine.brk(), Segment.MARKED));
            }
            if (p.quiesced) {
                return new ControlMessage.SegmentReply(mine);
            }
            home = p.home;
            homeId = p.homeSegmentId;
            local = Arrays.equals(home.nodeId(), state.address.nodeId());
            if (local) {
                Segment seg = state.segments.get(homeId);
                return new ControlMessage.SegmentReply(seg == null ? withHome(mine, mine.brk(), Segment.MARKED)
                    : withHome(mine, seg.brk, Math.max(seg.state, mine.state())));
            }
        } finally {
            lock.unlock();
        }
        try (PeerClient.Link link = peers.open(home, timeoutMs)) {
            if (link.call(new PeerMessage.PeerDescribe(homeId, homeId)) instanceof ControlMessage.SegmentReply sr) {
                return new ControlMessage.SegmentReply(withHome(mine, sr.segment().brk(),
                    Math.max(sr.segment().state(), mine.state())));
            }
            return new ControlMessage.SegmentReply(withHome(mine, mine.brk(), Segment.MARKED)); // gone at its home
        } catch (java.io.IOException unreachable) {
            return new ControlMessage.SegmentReply(mine);
        }
    }

    private static io.softcmi.wire.SegmentDescriptor withHome(io.softcmi.wire.SegmentDescriptor d, long brk, int state) {
        return new io.softcmi.wire.SegmentDescriptor(d.id(), d.size(), d.flags(), brk, d.path(), d.dataOffset(),
            d.creatorSession(), d.creatorPid(), state, d.attachCount(), d.exported(), d.imported());
    }

    ControlMessage attach(Session s, Proxy p) {
        if (p.marked) {
            throw NodeException.inval("segment " + p.id + " is marked for deletion; it cannot be attached");
        }
        if (p.quiesced) {
            throw new NodeException(io.softcmi.cmi.CmiError.RECONFIG, "segment " + p.id
                + " is quiesced (its home node is suspected to have failed); attach after the RESUME event");
        }
        long attachId = state.newAttachId();
        p.attachCount++;
        s.attachments.put(attachId, p.id);
        return new ControlMessage.ProxyAttached(attachId, p.describe());
    }

    void release(Proxy p) {
        p.attachCount--;
        reclaimIfUnused(p);
    }

    ControlMessage remove(Session s, Proxy p) {
        if (p.importerSession != s.id) {
            throw NodeException.perm("only the process that imported segment " + p.id + " may remove it");
        }
        mark(p);
        return new ControlMessage.Ok();
    }

    void mark(Proxy p) {
        p.marked = true;
        reclaimIfUnused(p);
    }

    private void reclaimIfUnused(Proxy p) {
        if (!p.marked || p.attachCount > 0 || state.proxies.remove(p.id) == null) {
            return;
        }
        Session importer = state.sessions.get(p.importerSession);
        if (importer != null) {
            importer.imported.remove(p.id);
        }
        PeerMessage.PeerUnimport u = new PeerMessage.PeerUnimport(p.homeSegmentId, state.address.toBytes(), p.id);
        if (Arrays.equals(p.home.nodeId(), state.address.nodeId())) {
            homeUnimport(u);
        } else if (p.homeDown) {
            LOG.log(Level.DEBUG, "proxy {0} of dead node {1} reclaimed", p.id, p.home);
        } else {
            messages.send(p.home, u); // after any context-down sent before it, in order
        }
    }

    ControlMessage setToken(Session s, ControlMessage.SegSetToken r) {
        Proxy p = state.proxies.get(r.segId());
        if (p == null) {
            if (state.segments.containsKey(r.segId())) {
                throw NodeException.inval("segment " + r.segId() + " is not imported; tokens are set on imports");
            }
            throw NodeException.inval("no segment " + r.segId() + " on this node");
        }
        if (p.importerSession != s.id) {
            throw NodeException.perm("only the process that imported segment " + p.id + " may set its token");
        }
        TokenImpl t;
        try {
            t = (TokenImpl) HandleCodec.token(r.token());
        } catch (RuntimeException e) {
            throw NodeException.inval("not a token");
        }
        if (!Arrays.equals(t.homeNodeId(), p.home.nodeId()) || t.segmentId() != p.homeSegmentId) {
            throw NodeException.inval("the token is for another segment");
        }
        if (!t.anyNode() && !Arrays.equals(t.boundNodeId(), state.address.nodeId())) {
            throw NodeException.perm("the token was made for another node");
        }
        p.token = r.token().clone();
        ControlMessage.TokenNotice notice = new ControlMessage.TokenNotice(p.id, p.token);
        for (Session other : state.sessions.values()) {
            if (other.id != s.id) {
                other.notifier.send(notice);
            }
        }
        return new ControlMessage.Ok();
    }

    void closeSession(Session s) {
        for (long id : new ArrayList<>(s.imported)) {
            Proxy p = state.proxies.get(id);
            if (p != null) {
                mark(p);
            }
        }
    }

    static NodeAddressImpl checkAddress(byte[] bytes) {
        return (NodeAddressImpl) HandleCodec.nodeAddress(bytes);
    }
}
