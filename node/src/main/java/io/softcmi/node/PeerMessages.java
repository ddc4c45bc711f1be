package io.softcmi.node;

import io.softcmi.cmi.internal.NodeAddressImpl;
import io.softcmi.wire.ControlMessage;
import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * Messages this node owes its peers that nobody waits for (a context ended, a proxy is gone),
 * delivered in the background but <b>in the order they were sent, per peer</b>: a peer must hear
 * that a context died before it hears that the context's imports are gone, or it would no longer
 * know whom to tell. One virtual thread per peer drains that peer's queue while it has messages;
 * a message the peer does not take is logged and dropped (a peer that cannot be reached is the
 * failure detector's business).
 */
final class PeerMessages {
    private static final System.Logger LOG = System.getLogger("io.softcmi.node");
    private final PeerClient peers;
    private final Map<NodeAddressImpl, ArrayDeque<ControlMessage>> queues = new HashMap<>();

    PeerMessages(PeerClient peers) {
        this.peers = peers;
    }

    /**
     * Queues a message for a peer.
     *
     * @param peer the peer daemon
     * @param message the request; its reply is only checked for errors
     */
    void send(NodeAddressImpl peer, ControlMessage message) {
        synchronized (queues) {
            ArrayDeque<ControlMessage> q = queues.get(peer);
            if (q != null) {
                q.add(message); // its drainer is running
                return;
            }
            q = new ArrayDeque<>();
            q.add(message);
            queues.put(peer, q);
        }
        Thread.ofVirtual().name("cmid-peer-messages").start(() -> drain(peer));
    }

    private void drain(NodeAddressImpl peer) {
        while (true) {
            ControlMessage next;
            synchronized (queues) {
                ArrayDeque<ControlMessage> q = queues.get(peer);
                next = q.poll();
                if (next == null) {
                    queues.remove(peer);
                    return;
                }
            }
            try {
                ControlMessage reply = peers.call(peer, next);
                if (reply instanceof ControlMessage.ErrorReply e) {
                    LOG.log(Level.INFO, "{0} refused {1}: {2}", peer, next.getClass().getSimpleName(), e.message());
                }
            } catch (RuntimeException e) {
                LOG.log(Level.INFO, "could not tell {0} ({1}): {2}", peer, next.getClass().getSimpleName(), e.getMessage());
            }
        }
    }
}
