package io.softcmi.systemtests;

import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiAccessError;
import io.softcmi.cmi.CmiAccessException;
import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiException;
import org.junit.jupiter.api.function.Executable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Assertions on CMI failures, as the binding defines them. */
final class CmiAssertions {
    private CmiAssertions() {
    }

    /**
     * Asserts that a call fails with {@code expected}, both as the exception's {@code error()} and
     * as the calling thread's {@link Cmi#lastError()} ({@code cmi_get_error}).
     *
     * @param expected the spec error code
     * @param call the CMI call, made on the calling thread
     * @return the exception
     */
    static CmiException assertCmiError(CmiError expected, Executable call) {
        return assertCmiError(expected, call, "");
    }

    /**
     * As {@link #assertCmiError(CmiError, Executable)}, with a message saying why.
     *
     * @param expected the spec error code
     * @param call the CMI call, made on the calling thread
     * @param why what the failure means
     * @return the exception
     */
    static CmiException assertCmiError(CmiError expected, Executable call, String why) {
        CmiException e = assertThrows(CmiException.class, call, why);
        assertEquals(expected, e.error(), () -> why + ": error() of " + e);
        assertEquals(expected, Cmi.lastError(), () -> why + ": Cmi.lastError() after " + e);
        return e;
    }

    /**
     * Asserts that an access fails with a CMI access exception ({@code SIGSEGV}/{@code SEGV_CMI}).
     *
     * @param expected {@code si_errno}
     * @param segmentId {@code si_id} expected
     * @param offset {@code si_addr} expected, as an offset into the segment
     * @param access the load or store
     * @return the exception
     */
    static CmiAccessException assertAccessError(CmiAccessError expected, long segmentId, long offset,
            Executable access) {
        CmiAccessException e = assertThrows(CmiAccessException.class, access);
        assertEquals(expected, e.accessError(), () -> "accessError() of " + e);
        assertEquals(segmentId, e.segmentId(), () -> "segmentId() of " + e);
        assertEquals(offset, e.offset(), () -> "offset() of " + e);
        return e;
    }
}
