package io.softcmi.cmi.internal;

import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.SegmentDescriptor;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The segment handles a context has seen, by node-scope id, and their lookups at the node:
 * local segments and proxies (imports) alike.
 */
final class SegmentDirectory {
    private final NodeChannel channel;
    private final NodeAddress node;
    private final Map<Long, SegmentImpl> known = new ConcurrentHashMap<>();

    SegmentDirectory(NodeChannel channel, NodeAddress node) {
        this.channel = channel;
        this.node = node;
    }

    SegmentImpl remember(SegmentDescriptor d) {
        return remember(new SegmentImpl(d, node, node));
    }

    SegmentImpl remember(ControlMessage.ProxyReply p) {
        return remember(new SegmentImpl(p.local(), HandleCodec.nodeAddress(p.home()), node));
    }

    private SegmentImpl remember(SegmentImpl s) {
        known.putIfAbsent(s.id(), s);
        return known.get(s.id());
    }

    /** {@code segFromId}: asks the node, INVAL if it does not know the id. */
    SegmentImpl lookup(long id) {
        ControlMessage reply = channel.call(new ControlMessage.SegLookup(id), ControlMessage.class);
        return switch (reply) {
            case ControlMessage.SegmentReply r -> remember(r.segment());
            case ControlMessage.ProxyReply p -> remember(p);
            default -> throw Errors.fail(CmiError.INVAL, "node answered " + reply.type() + " to a segment lookup");
        };
    }

    /** The node's current view of a segment (status, break, attach count); INVAL once it is gone. */
    SegmentDescriptor describe(long id) {
        ControlMessage reply = channel.call(new ControlMessage.SegLookup(id), ControlMessage.class);
        return switch (reply) {
            case ControlMessage.SegmentReply r -> r.segment();
            case ControlMessage.ProxyReply p -> p.local();
            default -> throw Errors.fail(CmiError.INVAL, "node answered " + reply.type() + " to a segment lookup");
        };
    }

    /** Resolves a handle given by the caller to one of this node's segments (local or proxy). */
    SegmentImpl own(CmiSegment seg) {
        if (seg instanceof SegmentImpl s && s.issuer().equals(node)) {
            return s;
        }
        throw Errors.fail(CmiError.INVAL, "not a segment of this node: " + seg);
    }

    /**
     * The proxies of one home this context has seen (imported or looked up), for a home the node
     * declared dead: those, and no proxy made later, give {@code SINVAL}.
     *
     * @param home a home node
     * @return the ids of its proxies known here
     */
    java.util.Set<Long> proxiesOf(NodeAddressImpl home) {
        java.util.Set<Long> ids = new java.util.HashSet<>();
        for (SegmentImpl s : known.values()) {
            if (s.imported() && home.equals(s.home())) {
                ids.add(s.id());
            }
        }
        return ids;
    }

    /** A handle for an id named by an event, without asking the node (called on the reader thread). */
    CmiSegment forEvent(long id) {
        SegmentImpl s = known.get(id);
        return s != null ? s : new SegmentImpl(new SegmentDescriptor(id, 0, 0, 0, "", 0, 0, 0, 0, 0, false, false), node,
            node);
    }
}
