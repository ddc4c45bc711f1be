package io.softcmi.cmi;

import java.util.Set;

/**
 * The client callbacks given to {@code cmi_ini} ({@link Cmi#init(CmiVersion, CmiCallbacks)}): the
 * spec's {@code cmi_cbs} without its memory-allocation callbacks, which have no meaning on the JVM
 * (the library accounts the memory of its objects itself, visible through {@code cmiadm}).
 *
 * <p>Messages of the requested facilities at {@code traceLevel} or less verbose are traced. As the
 * spec says, when no callback is given the library still traces them, to a place of its own.
 *
 * @param log receives trace messages; {@code null} means the library's default place
 * @param alert receives alert messages (serious conditions); {@code null} means the library's
 *              default place
 * @param traceFacilities the facilities to trace ({@code trace_facilities}); copied, {@code null}
 *                        means none
 * @param traceLevel the most verbose level traced ({@code trace_level}); {@code null} means
 *                   {@link TraceLevel#ERROR}
 */
public record CmiCallbacks(CmiLogger log, CmiLogger alert, Set<TraceFacility> traceFacilities,
                           TraceLevel traceLevel) {
    /**
     * Normalizes the components: copies the facilities and applies the defaults.
     *
     * @throws NullPointerException if {@code traceFacilities} contains {@code null}
     */
    public CmiCallbacks {
        traceFacilities = traceFacilities == null ? Set.of() : Set.copyOf(traceFacilities);
        traceLevel = traceLevel == null ? TraceLevel.ERROR : traceLevel;
    }

    /**
     * Callbacks that send both log and alert messages to one logger.
     *
     * @param logger receives log and alert messages; {@code null} means the library's default place
     * @param facilities the facilities to trace; {@code null} means none
     * @param level the most verbose level traced; {@code null} means {@link TraceLevel#ERROR}
     * @return the callbacks
     */
    public static CmiCallbacks tracing(CmiLogger logger, Set<TraceFacility> facilities, TraceLevel level) {
        return new CmiCallbacks(logger, logger, facilities, level);
    }
}
