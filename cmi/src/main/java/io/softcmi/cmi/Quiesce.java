package io.softcmi.cmi;

import java.util.List;

/**
 * {@code CMI_EVENT_QUIESCE}: cease all operations on the listed segments. Delivered to the process
 * that created the segments on their home node, and possibly to the importing processes. Until the
 * matching {@link Resume}, {@code seg_at} of these segments fails with {@link CmiError#RECONFIG}.
 * Quiesce events are not counted: one {@link Resume} resumes a segment however often it was
 * quiesced. Return it with {@link EventReturn#DONE} once operations have ceased.
 *
 * @param segments the affected segments; copied
 */
public record Quiesce(List<CmiSegment> segments) implements CmiEvent {
    /**
     * Checks and copies the components.
     *
     * @throws NullPointerException if a component or a list element is null
     */
    public Quiesce {
        segments = List.copyOf(segments);
    }

    /**
     * The event type.
     *
     * @return {@link CmiEventType#QUIESCE}
     */
    @Override
    public CmiEventType type() {
        return CmiEventType.QUIESCE;
    }
}
