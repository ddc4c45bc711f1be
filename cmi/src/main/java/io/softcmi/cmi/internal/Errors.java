package io.softcmi.cmi.internal;

import io.softcmi.cmi.CmiAccessError;
import io.softcmi.cmi.CmiAccessException;
import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiException;

/**
 * The one place that builds CMI exceptions, so that every failure also records the calling
 * thread's last error ({@code cmi_get_error}) and argument checks read the same everywhere.
 */
public final class Errors {
    private Errors() {
    }

    /**
     * Records {@code error} as the calling thread's last error and returns the exception to throw.
     *
     * @param error the spec error code
     * @param message what went wrong, for people
     * @return the exception
     */
    public static CmiException fail(CmiError error, String message) {
        ThreadState.current().lastError = error;
        JfrEvents.Failure jfr = new JfrEvents.Failure();
        if (jfr.shouldCommit()) {
            jfr.error = error.specName();
            jfr.message = message;
            jfr.commit();
        }
        return new CmiException(error, message);
    }

    /**
     * Builds an access exception (the spec's {@code SIGSEGV} with {@code SEGV_CMI}).
     *
     * @param error {@code si_errno}
     * @param segmentId {@code si_id}
     * @param offset {@code si_addr} as an offset into the segment
     * @return the exception; it has no stack trace
     */
    public static CmiAccessException access(CmiAccessError error, long segmentId, long offset) {
        JfrEvents.AccessFailure jfr = new JfrEvents.AccessFailure();
        if (jfr.shouldCommit()) {
            jfr.error = error.name();
            jfr.segmentId = segmentId;
            jfr.offset = offset;
            jfr.commit();
        }
        return new CmiAccessException(error, segmentId, offset);
    }

    /**
     * Fails with {@link CmiError#INVAL} when {@code value} is null.
     *
     * @param value the argument
     * @param name its name
     * @param <T> its type
     * @return the argument
     */
    public static <T> T checkNotNull(T value, String name) {
        if (value == null) {
            throw fail(CmiError.INVAL, name + " must not be null");
        }
        return value;
    }

    /**
     * Fails with {@link CmiError#INVAL} unless {@code value >= 0}.
     *
     * @param value the argument
     * @param name its name
     * @return the argument
     */
    public static long checkNotNegative(long value, String name) {
        if (value < 0) {
            throw fail(CmiError.INVAL, name + " must not be negative: " + value);
        }
        return value;
    }
}
