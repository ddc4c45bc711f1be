package io.softcmi.cmi;

import java.util.List;
import java.util.Objects;

/**
 * {@code CMI_EVENT_STORE_FAILURE} ({@code cmi_einfo_serr}): stores to a remote segment were lost
 * or corrupted because of a network or remote-node failure, for instance while cache lines were
 * written back. Delivered to the process that imported the segment.
 *
 * @param segment the segment that suffered the failure ({@code einfo_seg})
 * @param offsets byte offsets into the segment of the failed stores ({@code einfo_addr}); empty if
 *                the platform cannot tell; copied
 */
public record StoreFailure(CmiSegment segment, List<Long> offsets) implements CmiEvent {
    /**
     * Checks and copies the components.
     *
     * @throws NullPointerException if a component or a list element is null
     */
    public StoreFailure {
        Objects.requireNonNull(segment, "segment");
        offsets = List.copyOf(offsets);
    }

    /**
     * The event type.
     *
     * @return {@link CmiEventType#STORE_FAILURE}
     */
    @Override
    public CmiEventType type() {
        return CmiEventType.STORE_FAILURE;
    }
}
