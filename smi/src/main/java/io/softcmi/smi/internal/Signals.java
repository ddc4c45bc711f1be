package io.softcmi.smi.internal;

import io.softcmi.smi.SignalHandle;
import io.softcmi.smi.SmiError;
import io.softcmi.smi.SmiException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * {@code SMI_Signal_*}. Process {@code r} counts the signals it received from each sender in a
 * word of its control segment; a sender posts its new count there (one store at the home, and a
 * wake-up), a waiter waits on its own memory. Unlike SCI interrupts, a signal sent while nobody
 * waits is not lost: the next {@code signalWait} for that sender consumes it. A wait for a sender
 * that entered {@code SMI_Finalize} (for {@link #ANY}: every other process did) and whose signals
 * are all consumed fails with {@code OTHER} ({@link Departures}).
 */
public final class Signals {
    /** {@code SMI_SIGNAL_ANY}. */
    public static final int ANY = -1;
    /** {@code SMI_SIGNAL_BCAST}. */
    public static final int BCAST = -2;

    private final Job job;
    private final long[] sent;
    private final AtomicLongArray consumed;
    /** How long {@link #close} lets a waiting callback end by itself, and then after interrupting it. */
    private static final long CALLBACK_GRACE_MS = 2_000;
    /** The callbacks set so far ({@code SMI_Signal_setCallBack}), for {@link #close}. */
    private final List<Callback> callbacks = new CopyOnWriteArrayList<>();

    /** @param job the job */
    public Signals(Job job) {
        this.job = job;
        this.sent = new long[job.size()];
        this.consumed = new AtomicLongArray(job.size());
    }

    /**
     * {@code SMI_Signal_send}. Synchronized: two threads of one process (the main thread and a
     * signal callback) that signal the same process must not both count to the same value, nor
     * post their counts in the opposite order (the word keeps the last one posted); either would
     * lose a signal.
     *
     * @param rank the process, or {@link #BCAST}
     */
    public synchronized void send(int rank) {
        if (rank == BCAST) {
            for (int r = 0; r < job.size(); r++) {
                if (r != job.rank()) {
                    send(r);
                }
            }
            return;
        }
        Errors.checkRank(rank, job.size(), "proc_rank");
        job.context().wmb();
        job.waker().post(job.control(rank), Layout.CTRL_SIGNAL + 8L * job.rank(), ++sent[rank]);
    }

    /**
     * {@code SMI_Signal_wait}.
     *
     * @param rank the sender, or {@link #ANY}
     * @return the sender whose signal was consumed
     * @throws io.softcmi.smi.SmiException {@code OTHER} if the sender (for {@link #ANY} every
     *         other process) entered {@code SMI_Finalize} and no signal of it is left
     */
    public int await(int rank) {
        if (rank != ANY) {
            Errors.checkRank(rank, job.size(), "proc_rank");
        }
        while (true) {
            int from;
            if (rank == ANY) {
                from = job.waker().awaitAny(Layout.CTRL_SIGNAL, job.size(), (i, v) -> v > consumed.get(i), Departures.ANY);
            } else {
                job.waker().await(Layout.CTRL_SIGNAL + 8L * rank, v -> v > consumed.get(rank), rank);
                from = rank;
            }
            // A callback thread may wait too: each signal is consumed once.
            long c = consumed.get(from);
            if (job.ownControl().map().getLong(Layout.CTRL_SIGNAL + 8L * from) > c && consumed.compareAndSet(from, c, c + 1)) {
                job.context().rmb();
                return from;
            }
        }
    }

    /**
     * {@code SMI_Signal_setCallBack}: a thread waits for the signal and runs the callback.
     *
     * @param rank the sender, or {@link #ANY}
     * @param callback what to run
     * @return the handle to join
     */
    public SignalHandle callback(int rank, Runnable callback) {
        if (callback == null) {
            throw Errors.fail(SmiError.PARAM, "callback must not be null");
        }
        if (rank != ANY) {
            Errors.checkRank(rank, job.size(), "proc_rank");
        }
        Callback h = new Callback();
        callbacks.add(h);
        h.thread = Thread.ofPlatform().daemon().name("smi-signal-callback").start(() -> {
            job.context().iniTh();
            try {
                job.context().enable(true);
                await(rank);
                callback.run();
            } catch (SmiException e) {
                // The sender finalized: the callback never runs; join reports it.
                h.failure = e;
            } finally {
                h.done = true;
                job.context().fini();
            }
        });
        return h;
    }

    /**
     * {@code SMI_Signal_joinCallBack}.
     *
     * @param h a handle of {@link #callback}
     * @throws SmiException {@code OTHER} if the callback never ran because its wait failed (the
     *         sender entered {@code SMI_Finalize}, {@link #await})
     */
    public void join(SignalHandle h) {
        if (!(h instanceof Callback c)) {
            throw Errors.fail(SmiError.PARAM, "not a signal handle: " + h);
        }
        try {
            c.thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw Errors.fail(SmiError.OTHER, "interrupted while joining a signal callback");
        }
        if (c.failure != null) {
            throw Errors.fail(c.failure.error(), "the signal callback never ran: " + c.failure.getMessage());
        }
    }

    /**
     * {@code SMI_Finalize}'s part, after its first barrier (every process has entered it, so every
     * signal that will come has come): lets each callback still waiting take its signal or fail
     * ({@link Departures}: its sender entered {@code SMI_Finalize}), interrupts one that still
     * waits after two seconds (a wait for a signal of this process itself), and waits
     * for them to end, so that none of them uses the control segment once it is gone.
     */
    public void close() {
        for (Callback c : callbacks) {
            joinQuietly(c.thread, CALLBACK_GRACE_MS);
            if (c.thread.isAlive()) {
                c.thread.interrupt();
                joinQuietly(c.thread, CALLBACK_GRACE_MS);
            }
        }
        callbacks.clear();
    }

    private static void joinQuietly(Thread t, long ms) {
        try {
            t.join(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static final class Callback implements SignalHandle {
        volatile boolean done;
        volatile SmiException failure;
        Thread thread;

        @Override
        public boolean done() {
            return done;
        }
    }
}
