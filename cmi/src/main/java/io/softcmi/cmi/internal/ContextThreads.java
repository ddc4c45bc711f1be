package io.softcmi.cmi.internal;

import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.TraceFacility;
import io.softcmi.cmi.TraceLevel;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The threads of one context ({@code ini_th}, {@code fini}): which threads are associated with it,
 * the check every call makes that its caller is one of them ({@link #enter}, and the cheaper
 * {@link #checkFast} of the data-path calls), and the context's end when its last thread leaves.
 * A context ends once, and no thread joins it after that.
 */
final class ContextThreads {
    private final ContextImpl context;
    private final Tracer tracer;
    private final Set<Thread> threads = ConcurrentHashMap.newKeySet();
    /** Guards joining against the end: {@link #join} and {@link #leave}. */
    private final Object lifecycle = new Object();
    /** The state of the last thread that passed the association check; a cache for the data-path calls. */
    private ThreadState lastChecked;
    private volatile boolean ended;

    ContextThreads(ContextImpl context, Tracer tracer) {
        this.context = context;
        this.tracer = tracer;
    }

    /** Associates the calling thread with the context (the context's first thread, or {@code ini_th}). */
    void bind(ThreadState ts) {
        threads.add(Thread.currentThread());
        ts.context = context;
    }

    /**
     * {@code ini_th}: associates the calling thread.
     *
     * @throws io.softcmi.cmi.CmiException {@code BOUND} if it is associated with a context
     *     already, {@code INVAL} if this context has ended
     */
    void join() {
        ThreadState ts = ThreadState.current();
        if (ts.context != null) {
            throw Errors.fail(CmiError.BOUND, "calling thread is already associated with a context");
        }
        synchronized (lifecycle) {
            if (ended) {
                throw Errors.fail(CmiError.INVAL, "context is finalized");
            }
            bind(ts);
        }
        ts.lastError = null;
        tracer.trace(TraceFacility.INI, TraceLevel.INFO, "ini_th " + Thread.currentThread().getName());
    }

    /**
     * The first half of {@code fini}: checks that the calling thread belongs to this context and
     * forgets its per-thread state.
     *
     * @return the calling thread's state, no longer associated
     * @throws io.softcmi.cmi.CmiException {@code INIT} if it is associated with no context,
     *     {@code INVAL} if with another
     */
    ThreadState detach() {
        ThreadState ts = ThreadState.current();
        if (ts.context != context) {
            throw Errors.fail(ts.context == null ? CmiError.INIT : CmiError.INVAL,
                "calling thread is not associated with this context (fini)");
        }
        ThreadState c = lastChecked;
        if (c != null && c.owner == Thread.currentThread()) {
            lastChecked = null;
        }
        ts.context = null;
        ts.enabled = false;
        ts.epoch = null;
        ts.lastError = null;
        tracer.trace(TraceFacility.INI, TraceLevel.INFO, "fini " + Thread.currentThread().getName());
        return ts;
    }

    /**
     * The second half of {@code fini}: the calling thread leaves.
     *
     * @return whether it was the last one: the context has ended, and the caller ends it
     */
    boolean leave() {
        synchronized (lifecycle) {
            threads.remove(Thread.currentThread());
            if (threads.isEmpty()) {
                ended = true;
                return true;
            }
            return false;
        }
    }

    /** @return whether the context has ended */
    boolean ended() {
        return ended;
    }

    /**
     * Checks the calling thread for a control call and clears its last error. A context ends only
     * when its last thread leaves ({@link #leave}) and no thread joins it after that
     * ({@link #join}), so no thread is associated with an ended context: every call on it fails
     * this check with {@code INIT}.
     */
    ThreadState enter(TraceFacility facility, String call) {
        ThreadState ts = ThreadState.current();
        if (ts.context != context) {
            throw Errors.fail(CmiError.INIT, "calling thread is not associated with this context (" + call + ")"
                + (ended ? "; the context has ended" : ""));
        }
        ts.lastError = null;
        tracer.trace(facility, TraceLevel.DEBUG, call);
        return ts;
    }

    /**
     * {@link #enter(TraceFacility, String)} for a call about one subject: the trace line (and the
     * subject's {@code toString}) is built only when the call is traced or refused, not on every
     * call ({@code segStatus} in a loop spent about as long on it as the node on the request).
     */
    ThreadState enter(TraceFacility facility, String call, Object subject) {
        ThreadState ts = ThreadState.current();
        if (ts.context != context || tracer.enabled(facility, TraceLevel.DEBUG)) {
            return enter(facility, call + " " + subject);
        }
        ts.lastError = null;
        return ts;
    }

    /**
     * The association check for data-path calls ({@code atm_cas}, barriers), which clears the
     * thread's last error as every other call does ({@code cmi_get_error}): no ThreadLocal when
     * the calling thread was the last to pass it.
     */
    void checkFast() {
        ThreadState ts = lastChecked;
        if (ts == null || ts.owner != Thread.currentThread()) {
            ts = ThreadState.current();
            if (ts.context != context) {
                throw Errors.fail(CmiError.INIT, "calling thread is not associated with this context");
            }
            lastChecked = ts; // a ThreadState names its owner: a racing reader compares that, never a pair of fields
        }
        if (ts.lastError != null) {
            ts.lastError = null; // a load, not a store, on the data path's usual way (nothing failed)
        }
    }
}
