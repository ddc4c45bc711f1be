package io.softcmi.cmi.internal;

import io.softcmi.cmi.CmiAccessError;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.notify.DirectInlet;
import io.softcmi.cmi.notify.DirectRoute;

/**
 * The engine side of direct delivery ({@code Notifications.openInlet} and {@code routeTo};
 * docs/notifications.md, "Direct delivery"). Not an API: use {@code Notifications}.
 */
public final class DirectDelivery {
    private DirectDelivery() {
    }

    /**
     * Opens an inlet (see {@code Notifications.openInlet}).
     *
     * @param mapping a writable local attach made by this library
     * @return the inlet
     */
    public static DirectInlet openInlet(CmiMapping mapping) {
        Errors.checkNotNull(mapping, "mapping");
        if (!(mapping instanceof LocalMapping m) || mapping instanceof ExtensibleLocalMapping) {
            throw Errors.fail(CmiError.INVAL, "an inlet serves a local attach of a normal segment, not " + mapping);
        }
        if (!m.attached()) {
            throw Errors.fail(CmiError.INVAL, "segment " + m.segmentId + " is detached");
        }
        if (m.readOnly) {
            throw Errors.access(CmiAccessError.PERM, m.segmentId, 0);
        }
        return m.context.directEndpoints().openInlet(m.data, m.segment(), m::attached);
    }

    /**
     * A route to an inlet (see {@code Notifications.routeTo}).
     *
     * @param context a context made by this library
     * @param inletAddress an inlet's address
     * @return the route
     */
    public static DirectRoute routeTo(CmiContext context, byte[] inletAddress) {
        if (!(Errors.checkNotNull(context, "context") instanceof ContextImpl c)) {
            throw Errors.fail(CmiError.INVAL, "not a context made by softcmi: " + context);
        }
        return c.directEndpoints().routeTo(inletAddress);
    }
}
