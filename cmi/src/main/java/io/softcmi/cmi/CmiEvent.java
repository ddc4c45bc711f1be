package io.softcmi.cmi;

/**
 * An asynchronous notification event: the spec's {@code cmi_event}, obtained with {@code evt_get}
 * ({@link CmiContext#evtGet()}) and given back with {@code evt_ret}
 * ({@link CmiContext#evtRet(CmiEvent, EventReturn)}). Each kind is a record carrying the spec's
 * {@code cmi_einfo_*} data; switch on the record type or on {@link #type()}.
 *
 * <p>The spec's priority order applies: {@link HardwareFailure} comes before
 * {@link ConnectivityMap}, which comes before context-down events it explains.
 */
public sealed interface CmiEvent
        permits Quiesce, Resume, RemoteContextDown, HomeContextDown, StoreFailure, HardwareFailure,
        ConnectivityMap {
    /**
     * The spec's event type.
     *
     * @return the {@code CMI_EVENT_*} type of this event
     */
    CmiEventType type();
}
