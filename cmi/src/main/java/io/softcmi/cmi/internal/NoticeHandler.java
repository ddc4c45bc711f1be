package io.softcmi.cmi.internal;

import io.softcmi.cmi.CmiEvent;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.TraceFacility;
import io.softcmi.cmi.TraceLevel;
import io.softcmi.cmi.internal.cache.ContextCache;
import io.softcmi.wire.ControlMessage;

/**
 * Handles the notices the node sends one context (on the connection's reader): events go to the
 * event queue, tokens and ranges in flux to the attaches, notifications to the inbox, a home's
 * death to the data connections.
 */
final class NoticeHandler {
    private final Tracer tracer;
    private final EventQueue events;
    private final SegmentDirectory segments;
    private final NotificationInboxImpl notifications;
    private final RemoteConnections connections;
    private final ContextCache remoteCache;
    private final ContextMappings mappings;

    NoticeHandler(Tracer tracer, EventQueue events, SegmentDirectory segments, NotificationInboxImpl notifications,
            RemoteConnections connections, ContextCache remoteCache, ContextMappings mappings) {
        this.tracer = tracer;
        this.events = events;
        this.segments = segments;
        this.notifications = notifications;
        this.connections = connections;
        this.remoteCache = remoteCache;
        this.mappings = mappings;
    }

    /** @param notice a notice (or the node's refusal of a one-way message) */
    void onNotice(ControlMessage notice) {
        switch (notice) {
            case ControlMessage.EventNotice n -> {
                try {
                    CmiEvent e = EventQueue.fromNotice(n, segments::forEvent);
                    tracer.trace(TraceFacility.EVT, TraceLevel.INFO, "event " + e.type().specName());
                    events.add(e);
                } catch (RuntimeException e) {
                    tracer.trace(TraceFacility.EVT, TraceLevel.ERROR, "dropped malformed event: " + e.getMessage());
                }
            }
            case ControlMessage.TokenNotice t -> {
                try {
                    mappings.updateToken(t.segId(), (TokenImpl) HandleCodec.token(t.token()));
                } catch (RuntimeException e) {
                    tracer.trace(TraceFacility.TOK, TraceLevel.ERROR, "dropped malformed token notice");
                }
            }
            case ControlMessage.NotificationNotice n -> notifications.deliver(new io.softcmi.cmi.notify.Notification(
                segments.forEvent(n.segId()), n.offset(), n.value(), senderNode(n.sender())));
            case ControlMessage.HomeDownNotice d -> {
                try {
                    NodeAddressImpl home = (NodeAddressImpl) HandleCodec.nodeAddress(d.node());
                    connections.homeDown(home, segments.proxiesOf(home));
                    tracer.trace(TraceFacility.MEM, TraceLevel.ERROR, "home node " + HandleCodec.nodeAddress(d.node())
                        + " was declared dead: its segments give SINVAL");
                } catch (RuntimeException e) {
                    tracer.trace(TraceFacility.MEM, TraceLevel.ERROR, "dropped malformed home-down notice");
                }
            }
            case ControlMessage.FluxNotice f -> mappings.fluxChanged(f.segId(), f.ranges());
            case ControlMessage.NodeShutdown s ->
                tracer.trace(TraceFacility.INI, TraceLevel.ERROR, "CMI node is shutting down: " + s.reason());
            case ControlMessage.ErrorReply e when CachedImports.refusesCacheReports(e) -> {
                remoteCache.reportTo(null);
                tracer.trace(TraceFacility.MEM, TraceLevel.INFO, "the node does not take cache figures; not sending them");
            }
            default -> tracer.trace(TraceFacility.INI, TraceLevel.WARNING, "unexpected notice " + notice.type());
        }
    }

    /**
     * The sender of a notification: its node's address, or if the home sent only the node id, an
     * address with that id and no host or port.
     */
    private static NodeAddress senderNode(byte[] sender) {
        try {
            return sender.length == NodeAddressImpl.ID_LENGTH ? new NodeAddressImpl(sender, "", 0)
                : HandleCodec.nodeAddress(sender);
        } catch (RuntimeException e) {
            return NodeAddress.ANY;
        }
    }
}
