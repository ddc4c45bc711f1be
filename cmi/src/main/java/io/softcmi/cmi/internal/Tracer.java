package io.softcmi.cmi.internal;

import io.softcmi.cmi.CmiCallbacks;
import io.softcmi.cmi.CmiLogger;
import io.softcmi.cmi.TraceFacility;
import io.softcmi.cmi.TraceLevel;
import java.util.EnumSet;
import java.util.Set;

/**
 * The library's diagnosability ({@code cmi_cbs.trace_facilities}, trace levels): messages of an
 * enabled facility at or above the configured level go to the client's callbacks — errors and
 * warnings to {@code alert}, the rest to {@code log} — or, without callbacks, to the platform
 * logger {@code io.softcmi.cmi} ({@link System.Logger}), the "platform specific location".
 */
final class Tracer {
    private static final System.Logger PLATFORM = System.getLogger("io.softcmi.cmi");

    private final Set<TraceFacility> facilities;
    private final TraceLevel level;
    private final CmiLogger log;
    private final CmiLogger alert;

    Tracer(CmiCallbacks callbacks) {
        if (callbacks == null) {
            facilities = EnumSet.allOf(TraceFacility.class);
            level = TraceLevel.ERROR;
            log = Tracer::toPlatform;
            alert = Tracer::toPlatform;
        } else {
            facilities = EnumSet.noneOf(TraceFacility.class);
            facilities.addAll(callbacks.traceFacilities());
            level = callbacks.traceLevel();
            log = callbacks.log() != null ? callbacks.log() : Tracer::toPlatform;
            alert = callbacks.alert() != null ? callbacks.alert() : Tracer::toPlatform;
        }
    }

    boolean enabled(TraceFacility facility, TraceLevel at) {
        return level.includes(at) && facilities.contains(facility);
    }

    void trace(TraceFacility facility, TraceLevel at, String message) {
        if (!enabled(facility, at)) {
            return;
        }
        CmiLogger target = at == TraceLevel.ERROR || at == TraceLevel.WARNING ? alert : log;
        target.log(facility, at, message);
    }

    private static void toPlatform(TraceFacility facility, TraceLevel level, String message) {
        System.Logger.Level l = switch (level) {
            case ERROR -> System.Logger.Level.ERROR;
            case WARNING -> System.Logger.Level.WARNING;
            case INFO -> System.Logger.Level.INFO;
            case DEBUG -> System.Logger.Level.DEBUG;
            case HIGHEST -> System.Logger.Level.TRACE;
        };
        PLATFORM.log(l, "{0} {1}", facility.specName(), message);
    }
}
