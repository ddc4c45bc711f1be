package io.softcmi.cmi.internal;

import io.softcmi.cmi.CmiError;

/**
 * What the library keeps per thread: the context it is associated with ({@code ini_th}), its
 * last error ({@code cmi_get_error}), whether remote access is enabled ({@code cmi_enb}) and its
 * open flush epoch ({@code open_fb}). Only the owning thread reads or writes these fields.
 */
final class ThreadState {
    private static final ThreadLocal<ThreadState> CURRENT = ThreadLocal.withInitial(ThreadState::new);

    /** The thread this state is of. */
    final Thread owner = Thread.currentThread();
    /** The context this thread is associated with, or null. */
    ContextImpl context;
    /** The last error of a failed call, null after a successful call. */
    CmiError lastError;
    /** Whether this thread enabled access to remote segments. */
    boolean enabled;
    /** This thread's open flush epoch, or null. */
    FlushEpochImpl epoch;

    static ThreadState current() {
        return CURRENT.get();
    }
}
