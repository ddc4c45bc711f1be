package io.softcmi.node;

import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.internal.NodeAddressImpl;
import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.ProcessMessage;

/**
 * Serves the process service's and node registry's requests ({@link ProcessMessage}) for the
 * engine: each with its own lock, never the engine's; {@link ProcessMessage.Forward} passes one
 * to a peer daemon, and a peer daemon's forwarded request is served here.
 */
final class ProcessRequests {
    private static final System.Logger LOG = System.getLogger("io.softcmi.node");
    /** The daemon's user: the only one its process service starts or ends processes for. */
    static final String OWNER = System.getProperty("user.name");
    private final NodeState state;
    private final PeerClient peers;

    ProcessRequests(NodeState state, PeerClient peers) {
        this.state = state;
        this.peers = peers;
    }

    /**
     * The process service and the node registry: their own locks, never the engine's (starting
     * a process may take a while).
     *
     * @return the reply, or null if the request is not theirs
     */
    ControlMessage serve(String user, ControlMessage request) {
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
    ControlMessage forward(Session s, ProcessMessage.Forward f) {
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
                ControlMessage local = serve(s.user, inner);
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

    /** @return whether {@code m} is a request a peer daemon may be asked to serve ({@link ProcessMessage.Forward}) */
    static boolean forwardable(ControlMessage m) {
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

    /**
     * A forwardable request ({@link #forwardable}) from an authenticated peer daemon: served as
     * the daemon's user if this node allows peer processes ({@code cmid --peer-processes yes}).
     *
     * @param request the request
     * @return the reply
     */
    ControlMessage servePeer(ControlMessage request) {
        if (!state.config.peerProcesses()) {
            LOG.log(System.Logger.Level.WARNING, "refused a peer's {0}: this node does not serve peer processes "
                + "(--peer-processes no)", request.type());
            return new ControlMessage.ErrorReply(CmiError.PERM.ordinal(),
                "node " + state.config.name() + " does not serve peers' process requests (cmid --peer-processes no)");
        }
        try {
            ControlMessage local = serve(OWNER, request);
            return local != null ? local : peerList(request);
        } catch (NodeException e) {
            return new ControlMessage.ErrorReply(e.error().ordinal(), e.getMessage());
        }
    }

    /** {@code cmiadm sessions} and {@code runs} for a forwarded request (own monitors, no engine lock). */
    private ControlMessage peerList(ControlMessage m) {
        if (m instanceof ControlMessage.AdminList r) {
            return r.table().equals("runs") ? state.processes.table() : state.registry.table("session", "SESSION");
        }
        throw NodeException.inval("cannot forward " + m.type());
    }
}
