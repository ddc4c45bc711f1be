package io.softcmi.cmi;

/**
 * The spec's event completion status ({@code cmi_event_ret}) given to {@code evt_ret} ({@link
 * CmiContext#evtRet(CmiEvent, EventReturn)}).
 */
public enum EventReturn {
    /**
     * {@code CMI_EVENT_RET_DONE}: the event was handled successfully.
     */
    DONE,
    /**
     * {@code CMI_EVENT_RET_ERROR}: the event could not be handled. For event types that require
     * success the spec makes this fatal; softcmi logs it as a warning and goes on.
     */
    ERROR;

    /**
     * The spec's name of this constant.
     *
     * @return {@code "CMI_EVENT_RET_"} followed by the constant's name, e.g. {@code "CMI_EVENT_RET_DONE"}
     */
    public String specName() {
        return "CMI_EVENT_RET_" + name();
    }
}
