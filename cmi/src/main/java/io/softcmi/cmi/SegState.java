package io.softcmi.cmi;

/**
 * The lifecycle state of a segment, as reported by {@code seg_ctl(CMI_SEG_STATUS)} in
 * {@link SegStatus#state()}. The spec leaves the content of the status structure to the platform;
 * these are softcmi's states.
 */
public enum SegState {
    /** The segment is usable. */
    ACTIVE,
    /**
     * A {@code CMI_EVENT_QUIESCE} is in effect: attaches fail with {@link CmiError#RECONFIG} until
     * the segment is resumed.
     */
    QUIESCED,
    /**
     * {@code seg_ctl(CMI_SEG_RM)} was done; the segment is reclaimed once the last process detaches.
     */
    MARKED_FOR_DELETION
}
