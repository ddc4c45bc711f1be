package io.softcmi.cmi;

/**
 * The spec's event types ({@code CMI_EVENT_*}), answered by {@link CmiEvent#type()}.
 */
public enum CmiEventType {
    /**
     * {@code CMI_EVENT_QUIESCE}: cease all operations on the listed segments ({@link Quiesce}).
     */
    QUIESCE,
    /**
     * {@code CMI_EVENT_RESUME}: previously quiesced segments may be used again ({@link
     * Resume}).
     */
    RESUME,
    /**
     * {@code CMI_EVENT_RCTXT_DOWN}: a remote context that imported segments of this context
     * died ({@link RemoteContextDown}).
     */
    RCTXT_DOWN,
    /**
     * {@code CMI_EVENT_HCTXT_DOWN}: the home context of segments this context imported died
     * ({@link HomeContextDown}).
     */
    HCTXT_DOWN,
    /**
     * {@code CMI_EVENT_STORE_FAILURE}: stores to a segment were lost because of a network or
     * remote failure ({@link StoreFailure}).
     */
    STORE_FAILURE,
    /**
     * {@code CMI_EVENT_HW}: stores were lost because of a local hardware failure ({@link
     * HardwareFailure}).
     */
    HW,
    /**
     * {@code CMI_EVENT_CMAP}: the connectivity map: remote nodes disconnected from this context
     * ({@link ConnectivityMap}).
     */
    CMAP;

    /**
     * The spec's name of this constant.
     *
     * @return {@code "CMI_EVENT_"} followed by the constant's name, e.g. {@code "CMI_EVENT_QUIESCE"}
     */
    public String specName() {
        return "CMI_EVENT_" + name();
    }
}
