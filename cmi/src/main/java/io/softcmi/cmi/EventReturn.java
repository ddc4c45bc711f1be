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
     * {@code CMI_EVENT_RET_ERROR}: the event could not be handled; for event types that require
     * success this is fatal to the process.
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
