package io.softcmi.cmi;

import java.util.List;
import java.util.Objects;

/**
 * {@code CMI_EVENT_HCTXT_DOWN}: the home context of segments this context imported has died or
 * become unreachable. Further loads and stores to the listed segments throw
 * {@link CmiAccessException}s; the usual answer is to detach them and reconfigure. No
 * {@link Resume} follows for them.
 *
 * @param node the node address of the dead home context
 * @param contextId the id of the dead context on that node
 * @param segments the segments this context imported from the dead context; copied
 */
public record HomeContextDown(NodeAddress node, long contextId, List<CmiSegment> segments) implements CmiEvent {
    /**
     * Checks and copies the components.
     *
     * @throws NullPointerException if a component or a list element is null
     */
    public HomeContextDown {
        Objects.requireNonNull(node, "node");
        segments = List.copyOf(segments);
    }

    /**
     * The event type.
     *
     * @return {@link CmiEventType#HCTXT_DOWN}
     */
    @Override
    public CmiEventType type() {
        return CmiEventType.HCTXT_DOWN;
    }
}
