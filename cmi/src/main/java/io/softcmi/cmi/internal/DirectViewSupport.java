package io.softcmi.cmi.internal;

import io.softcmi.cmi.CmiAccessError;
import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiMapping;
import java.lang.foreign.MemorySegment;

/**
 * The engine side of {@code io.softcmi.cmi.direct.DirectViews}: hands out the memory of a local
 * attach after the checks an access would make. Not an API: use {@code DirectViews}.
 */
public final class DirectViewSupport {
    private DirectViewSupport() {
    }

    /**
     * The memory of a local attach (see {@code DirectViews.view}).
     *
     * @param mapping a mapping made by this library
     * @return the attach's mapped memory, read-only for a read-only attach
     */
    public static MemorySegment view(CmiMapping mapping) {
        Errors.checkNotNull(mapping, "mapping");
        if (!(mapping instanceof LocalMapping m)) {
            if (mapping instanceof RemoteMapping) {
                throw Errors.fail(CmiError.INVAL, "no direct view of an imported segment (" + mapping
                    + "): its memory is at its home node; use the mapping's get and put");
            }
            throw Errors.fail(CmiError.INVAL, "not a mapping made by softcmi: " + mapping);
        }
        if (m instanceof ExtensibleLocalMapping) {
            throw Errors.fail(CmiError.INVAL, "no direct view of extensible segment " + m.segmentId
                + ": its break is checked on every access");
        }
        // What an access of the whole mapping would check, once: detached, ENABLE, CONSIST.
        if (!m.attached()) {
            throw new IllegalStateException("segment " + m.segmentId + " is detached");
        }
        if (!ThreadState.current().enabled) {
            throw Errors.access(CmiAccessError.ENABLE, m.segmentId, 0);
        }
        m.checkFlux(0, m.size());
        return m.readOnly ? m.data.asReadOnly() : m.data;
    }
}
