package io.softcmi.node;

import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.PeerMessage;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Serves the requests of authenticated peer daemons ({@link PeerMessage}: imports of this
 * node's segments, their descriptors, ended contexts) under the engine lock, after checking that
 * the peer speaks only for itself; forwarded process-service requests go to
 * {@link ProcessRequests}.
 */
final class PeerRequests {
    private static final System.Logger LOG = System.getLogger("io.softcmi.node");
    private final NodeState state;
    private final ReentrantLock lock;
    private final ImportService imports;
    private final FailureEvents failures;
    private final ProcessRequests processes;

    PeerRequests(NodeState state, ReentrantLock lock, ImportService imports, FailureEvents failures,
            ProcessRequests processes) {
        this.state = state;
        this.lock = lock;
        this.imports = imports;
        this.failures = failures;
        this.processes = processes;
    }

    /**
     * Serves a request of an authenticated peer daemon. A peer may only speak for itself: the
     * importer a request names must be the node that proved the cluster key on this connection.
     *
     * @param request the request
     * @param peerNodeId the node id the peer proved
     * @return the reply
     */
    ControlMessage handle(ControlMessage request, byte[] peerNodeId) {
        if (ProcessRequests.forwardable(request)) {
            return processes.servePeer(request);
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
}
