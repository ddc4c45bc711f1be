package io.softcmi.cmi.internal;

import io.softcmi.wire.DataProtocol;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * One request on a {@link RemoteConnection} and, once {@link #done}, its outcome: {@link #status}
 * (0, an access error's wire code, {@link RemoteConnection#STATUS_IO} or
 * {@link RemoteConnection#STATUS_TIMEOUT}) and {@link #value} (a CAS's old value, a load's bits).
 * Its caller waits for it ({@link ReplyReader#await}); so may other threads that {@link #join}
 * it. Whoever completes it wakes them all ({@link #wake}).
 */
final class RemoteCall {
    private static final VarHandle JOINERS;

    static {
        try {
            JOINERS = MethodHandles.lookup().findVarHandle(RemoteCall.class, "joiners", Thread[].class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final Thread waiter = Thread.currentThread();
    long id;
    /** Where a read's payload goes, or null for a typed load (then {@link #width} bytes into value). */
    MemorySegment dst;
    long dstOffset;
    int width;
    /** Payload for a caller whose destination the reader thread may not touch. */
    byte[] detached;
    int status;
    long value;
    /** Request flags ({@link DataProtocol#FLAG_AFTER_OK}). */
    byte flags;
    /** A reply may carry fewer payload bytes than {@link #width} (ACQUIRE); their count lands in {@link #received}. */
    boolean upTo;
    int received;
    volatile boolean done;
    // What the request was, for the JFR event of its wait.
    byte op;
    long segmentId;
    long offset;
    long bytes;
    /**
     * Threads other than {@link #waiter} that wait for this call (a cache miss that joined
     * another thread's fill in flight), each unparked with the waiter when the call is done
     * ({@link #wake}). Copied on each join; null while nobody joined.
     */
    private volatile Thread[] joiners;

    /**
     * Registers the running thread as a waiter of this call besides its caller, before it
     * looks at {@link #done}: whoever completes the call after that look unparks it too.
     */
    void join() {
        Thread me = Thread.currentThread();
        if (me == waiter || done) {
            return; // its caller, or a call already done: nothing to wake it for
        }
        while (true) {
            Thread[] old = joiners;
            if (old != null && Arrays.asList(old).contains(me)) {
                return;
            }
            Thread[] grown = old == null ? new Thread[] {me} : Arrays.copyOf(old, old.length + 1);
            grown[grown.length - 1] = me;
            if (JOINERS.compareAndSet(this, old, grown)) {
                return;
            }
        }
    }

    /** Completes this call with an outcome of this side (a failure). */
    void complete(int status, long value) {
        this.status = status;
        this.value = value;
        this.done = true;
        wake();
    }

    /**
     * Wakes the caller of a call just done and the threads that joined it ({@link #join}),
     * except the running thread (a reader that completed its own call): unparking oneself costs
     * a JVM call and leaves a permit that makes the thread's next park return at once. Called
     * after {@link #done} is set, and by a reader leaving its role (to hand it over).
     */
    void wake() {
        Thread me = Thread.currentThread();
        if (waiter != me) {
            LockSupport.unpark(waiter);
        }
        Thread[] joined = joiners;
        if (joined != null) {
            for (Thread t : joined) {
                if (t != me) {
                    LockSupport.unpark(t);
                }
            }
        }
    }

    /** @return whether {@code t} joined this call */
    boolean joinedBy(Thread t) {
        Thread[] j = joiners;
        return j != null && Arrays.asList(j).contains(t);
    }
}
