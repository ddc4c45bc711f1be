package io.softcmi.cmi;

import java.util.List;
import java.util.Objects;

/**
 * {@code CMI_EVENT_RCTXT_DOWN}: a remote context that imported segments of this context has died
 * or become unreachable. The listed segments are this context's segments that it had attached; in
 * client-inconsistent mode the home recovers them with {@code seg_ctl(CMI_SEG_CHECK)} and
 * {@code seg_ctl(CMI_SEG_RECO)}.
 *
 * @param node the node address of the dead context
 * @param contextId the id of the dead context on that node
 * @param segments this context's segments the dead context had imported; copied
 */
public record RemoteContextDown(NodeAddress node, long contextId, List<CmiSegment> segments) implements CmiEvent {
    /**
     * Checks and copies the components.
     *
     * @throws NullPointerException if a component or a list element is null
     */
    public RemoteContextDown {
        Objects.requireNonNull(node, "node");
        segments = List.copyOf(segments);
    }

    /**
     * The event type.
     *
     * @return {@link CmiEventType#RCTXT_DOWN}
     */
    @Override
    public CmiEventType type() {
        return CmiEventType.RCTXT_DOWN;
    }
}
