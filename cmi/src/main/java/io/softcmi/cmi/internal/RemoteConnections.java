package io.softcmi.cmi.internal;

import io.softcmi.cmi.CmiAccessError;
import io.softcmi.cmi.TraceFacility;
import io.softcmi.cmi.TraceLevel;
import io.softcmi.wire.ControlMessage;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A context's data connections, one per home node, opened on first use with a node ticket from
 * the context's own daemon (fetched once, and again if a home refuses it: tickets expire).
 */
final class RemoteConnections {
    private final NodeChannel channel;
    private final Tracer tracer;
    private final Map<NodeAddressImpl, RemoteConnection> connections = new ConcurrentHashMap<>();
    private volatile byte[] ticket;

    RemoteConnections(NodeChannel channel, Tracer tracer) {
        this.channel = channel;
        this.tracer = tracer;
    }

    /**
     * The data connection to a home node.
     *
     * @throws io.softcmi.cmi.CmiAccessException TRANSIENT if the home cannot be reached
     */
    RemoteConnection get(NodeAddressImpl home, long segmentId, long offset) {
        RemoteConnection c = connections.get(home);
        if (c != null && !c.broken()) {
            return c;
        }
        synchronized (connections) {
            c = connections.get(home);
            if (c == null || c.broken()) {
                c = open(home, segmentId, offset);
                connections.put(home, c);
            }
            return c;
        }
    }

    private RemoteConnection open(NodeAddressImpl home, long segmentId, long offset) {
        try {
            byte[] t = ticket;
            if (t == null) {
                t = freshTicket();
            }
            try {
                return RemoteConnection.open(home, t);
            } catch (IOException refused) {
                return RemoteConnection.open(home, freshTicket());
            }
        } catch (IOException | RuntimeException e) {
            tracer.trace(TraceFacility.MEM, TraceLevel.WARNING, "cannot reach home node " + home + ": " + e.getMessage());
            throw Errors.access(CmiAccessError.TRANSIENT, segmentId, offset);
        }
    }

    private byte[] freshTicket() {
        byte[] t = channel.call(new ControlMessage.TicketRequest(), ControlMessage.BytesValue.class).value();
        ticket = t;
        return t;
    }

    void closeAll() {
        connections.values().forEach(RemoteConnection::close);
        connections.clear();
    }
}
