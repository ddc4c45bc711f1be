package io.softcmi.cmi;

import java.util.List;

/**
 * {@code CMI_EVENT_RESUME}: operations on previously quiesced segments may resume, the underlying
 * condition being resolved. Always delivered on the home node for a quiesced segment; without a
 * preceding {@link Quiesce} it has no effect.
 *
 * @param segments the segments that may be used again; copied
 */
public record Resume(List<CmiSegment> segments) implements CmiEvent {
    /**
     * Checks and copies the components.
     *
     * @throws NullPointerException if a component or a list element is null
     */
    public Resume {
        segments = List.copyOf(segments);
    }

    /**
     * The event type.
     *
     * @return {@link CmiEventType#RESUME}
     */
    @Override
    public CmiEventType type() {
        return CmiEventType.RESUME;
    }
}
