package io.softcmi.cmi;

import java.util.List;
import java.util.Objects;

/**
 * {@code CMI_EVENT_HW}: stores were lost because of a local hardware failure, as distinct from
 * {@link StoreFailure} (network or remote failure). The highest-priority event: it precedes the
 * {@link ConnectivityMap} and context-down events it causes.
 *
 * @param segment the segment whose stores failed
 * @param offsets byte offsets into the segment of the failed stores; empty if the platform cannot
 *                tell; copied
 */
public record HardwareFailure(CmiSegment segment, List<Long> offsets) implements CmiEvent {
    /**
     * Checks and copies the components.
     *
     * @throws NullPointerException if a component or a list element is null
     */
    public HardwareFailure {
        Objects.requireNonNull(segment, "segment");
        offsets = List.copyOf(offsets);
    }

    /**
     * The event type.
     *
     * @return {@link CmiEventType#HW}
     */
    @Override
    public CmiEventType type() {
        return CmiEventType.HW;
    }
}
