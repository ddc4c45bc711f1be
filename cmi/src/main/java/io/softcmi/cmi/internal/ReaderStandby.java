package io.softcmi.cmi.internal;

import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Keeps the control connection's background reader thread off the socket while callers read
 * their own replies ({@link NodeChannel}). A thread blocked in a selector on the socket is woken
 * by the kernel whenever bytes arrive, even bytes a polling caller is about to read itself; on a
 * small machine that wake-up of a third thread per call takes a core from the caller or from
 * the node that answers it, and then makes the caller hand it the read lock. So when the reader
 * wakes and finds that a caller took (or is taking) what arrived, it parks here instead of
 * returning to the selector, for as long as calls keep coming: until {@link #LINGER_NANOS} after
 * the latest caller stopped reading, or until someone needs it ({@link #want()}): a caller that
 * leaves with its reply not read, with other callers' replies still to come, or with notices
 * queued for the listener; a notification sender opening its answer window; closing.
 *
 * <p>What this costs: a notice that arrives while no caller reads and the reader stands by
 * waits for the next caller's read or for the end of the linger, so at most
 * {@link #LINGER_NANOS} longer than it would have (only within that time after a control call).
 * In a steady stream of calls the reader wakes once per linger instead of once per call.
 *
 * <p>Threads: {@link #standBy} on the reader thread only; the rest from any thread.
 */
final class ReaderStandby {
    /** How long after the latest caller's read the reader keeps standing by. */
    static final long LINGER_NANOS = 200_000;
    /** {@link System#nanoTime} when a caller last stopped reading; 0 before the first. */
    private volatile long lastCallerRead;
    /** Someone needs the reader on the socket: set by {@link #want()}, taken by {@link #standBy}. */
    private volatile boolean wanted;
    /** Whether the reader stands by now (read by tests). */
    private volatile boolean standing;
    private volatile Thread reader;

    /**
     * @param reader the thread that calls {@link #standBy}
     */
    void reader(Thread reader) {
        this.reader = reader;
    }

    /** A caller stopped reading the socket for its reply (it got it, or gave up and called {@link #want()}). */
    void callerRead() {
        lastCallerRead = System.nanoTime();
    }

    /** Someone needs the reader on the socket: ends its stand-by, now or the next time it would start one. */
    void want() {
        wanted = true;
        Thread t = reader;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** @return whether the reader stands by now */
    boolean standing() {
        return standing;
    }

    /**
     * Parks the reader thread while callers keep reading their replies: returns once
     * {@link #want()} was called (now or since the last stand-by), {@code open} turns false, or
     * neither {@code callerReading} held nor a caller stopped reading in the last
     * {@link #LINGER_NANOS}.
     *
     * @param open whether the connection is still open
     * @param callerReading whether a caller reads the socket now
     * @return whether it parked at all
     */
    boolean standBy(BooleanSupplier open, BooleanSupplier callerReading) {
        standing = true;
        boolean parked = false;
        try {
            while (!wanted && open.getAsBoolean()) {
                long until = callerReading.getAsBoolean() ? System.nanoTime() + LINGER_NANOS
                    : lastCallerRead + LINGER_NANOS;
                long left = until - System.nanoTime();
                if (lastCallerRead == 0 && !callerReading.getAsBoolean() || left <= 0) {
                    break;
                }
                LockSupport.parkNanos(this, left);
                parked = true;
            }
            wanted = false;
            return parked;
        } finally {
            standing = false;
        }
    }
}
