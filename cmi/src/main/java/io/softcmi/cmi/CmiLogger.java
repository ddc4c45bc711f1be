package io.softcmi.cmi;

/**
 * A trace sink: the Java form of the spec's {@code log} and {@code alert} callbacks in
 * {@code cmi_cbs}. The library calls it for each traced message of a facility and level the client
 * asked for in {@link CmiCallbacks}. It may be called from any thread, concurrently, and must not
 * call back into CMI.
 */
@FunctionalInterface
public interface CmiLogger {
    /**
     * Receives one trace message.
     *
     * @param facility the part of the library that traced the message
     * @param level the level of the message
     * @param message the text of the message
     */
    void log(TraceFacility facility, TraceLevel level, String message);
}
