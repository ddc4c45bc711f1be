package io.softcmi.smi.internal;

import io.softcmi.smi.SmiError;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code SMI_Watchdog}: a daemon thread that writes this process's heartbeat into the bootstrap
 * segment every second and, unless disabled, checks the other processes' heartbeats: a process
 * whose heartbeat has not moved for the timeout is declared dead and this process ends (after the
 * watchdog callback). It also ends the process when another one called {@code SMI_Abort} or when
 * the bootstrap segment is gone ({@code smirun} died). {@code smirun} itself ends the whole job
 * as soon as a process exits abnormally; the watchdog covers hung processes and lost launchers.
 */
public final class Watchdog {
    /** {@code SMI_WATCHDOG_DISABLE}: the thread runs on, but declares no process dead. */
    public static final int DISABLE = -1;
    /** {@code SMI_WATCHDOG_OFF}: the thread stops. */
    public static final int OFF = -2;

    private static final long BEAT_NS = 1_000_000_000L;

    private final Job job;
    private final Thread thread;
    private volatile int timeoutSeconds;
    private volatile boolean stop;

    /**
     * Starts the watchdog of a job.
     *
     * @param job the job
     * @param timeoutSeconds seconds without a heartbeat after which a process counts as dead
     */
    public Watchdog(Job job, int timeoutSeconds) {
        this.job = job;
        this.timeoutSeconds = timeoutSeconds;
        this.thread = Thread.ofPlatform().daemon().name("smi-watchdog-" + job.rank()).unstarted(this::run);
        thread.start();
    }

    /**
     * Changes the timeout, disables or stops the watchdog.
     *
     * @param timeout seconds (positive), {@link #DISABLE} or {@link #OFF}
     */
    public void timeout(int timeout) {
        if (timeout <= 0 && timeout != DISABLE && timeout != OFF) {
            throw Errors.fail(SmiError.PARAM, "watchdog timeout " + timeout + " is neither positive nor DISABLE/OFF");
        }
        if (timeout == OFF) {
            stop();
            return;
        }
        timeoutSeconds = timeout;
    }

    /** Stops the thread and waits for it (at most a few seconds). */
    public void stop() {
        stop = true;
        LockSupport.unpark(thread);
        if (Thread.currentThread() != thread) {
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void run() {
        try {
            job.context().iniTh();
        } catch (RuntimeException e) {
            return;
        }
        try {
            job.context().enable(true);
            long beat = 1;
            long[] last = null;
            long[] lastChange = new long[job.size()];
            while (!stop) {
                job.heartbeat(beat++);
                job.checkAbort();
                long now = System.nanoTime();
                long[] hb = job.heartbeats();
                int t = timeoutSeconds;
                for (int r = 0; r < hb.length; r++) {
                    if (last == null || hb[r] != last[r] || Layout.isFinished(hb[r])) {
                        lastChange[r] = now;
                    } else if (t > 0 && r != job.rank() && now - lastChange[r] > t * BEAT_NS && !stop) {
                        job.terminate(1, "SMI watchdog: process " + r + " gave no sign of life for " + t + " s");
                    }
                }
                last = hb;
                // A park may end early (a stray unpark: the data path unparks the callers it
                // completes, and a permit left over ends the next park at once): sleep to the beat.
                long nextBeat = now + BEAT_NS;
                for (long left = BEAT_NS; left > 0 && !stop; left = nextBeat - System.nanoTime()) {
                    LockSupport.parkNanos(left);
                }
            }
        } catch (RuntimeException e) {
            if (!stop) {
                job.terminate(1, "SMI watchdog: the job's shared state is unreachable (" + e + ")");
            }
        } finally {
            try {
                job.context().fini();
            } catch (RuntimeException ignored) {
                // The context is already closing.
            }
        }
    }
}
