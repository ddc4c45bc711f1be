package io.softcmi.cmi;

import java.util.List;

/**
 * {@code CMI_EVENT_CMAP} ({@code cmi_einfo_cmap}): the remote nodes that are disconnected from
 * this context, among those that imported its segments or exported segments it imported.
 * Solicited by {@code cmi_ctl(CMI_CTL_NODE_CMAP_GET)} ({@link CmiContext#ctlNodeCmapGet(long)}),
 * which is answered by exactly one such event, or unsolicited when connectivity changes.
 *
 * @param requestId the client's request id given to {@code CMI_CTL_NODE_CMAP_GET}; 0 for an
 *                  unsolicited event
 * @param disconnected the node addresses of the disconnected nodes; copied
 */
public record ConnectivityMap(long requestId, List<NodeAddress> disconnected) implements CmiEvent {
    /**
     * Checks and copies the components.
     *
     * @throws NullPointerException if a component or a list element is null
     */
    public ConnectivityMap {
        disconnected = List.copyOf(disconnected);
    }

    /**
     * The event type.
     *
     * @return {@link CmiEventType#CMAP}
     */
    @Override
    public CmiEventType type() {
        return CmiEventType.CMAP;
    }

    /**
     * Whether this event answers a {@code CMI_CTL_NODE_CMAP_GET} request.
     *
     * @return {@code true} if {@link #requestId()} is not 0
     */
    public boolean solicited() {
        return requestId != 0;
    }
}
