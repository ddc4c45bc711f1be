package io.softcmi.smi.internal;

import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiException;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiVersion;
import io.softcmi.smi.SmiError;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * One process's view of an SMI job: its CMI context, the bootstrap segment, its own control
 * segment and every other process's, the barrier and the atomic helpers the synchronization
 * objects use. Made by {@code SMI_Init}; all methods run on the thread that called it, except
 * where noted.
 */
public final class Job {
    private final JobEnv env;
    private final CmiContext ctx;
    private final Segments segments;
    private final Bootstrap ownBootstrap;
    private final Segments.Foreign bootForeign;
    private final CmiMapping boot;
    private final Segments.Own control;
    private final CmiMapping[] controls;
    private final List<Segments.Foreign> peerControls = new ArrayList<>();
    private final Waker waker;
    private final Debug debug;
    private final Departures departures;
    private long barriers;
    /** The rank this process posts to in each round of a barrier ({@link Dissemination#targets}). */
    private final int[] barrierTargets;
    private volatile Runnable abnormalEnd = () -> { };

    private Job(JobEnv env, CmiContext ctx, Segments segments, Bootstrap ownBootstrap, Segments.Foreign bootForeign,
            CmiMapping boot, Segments.Own control, Debug debug) {
        this.env = env;
        this.ctx = ctx;
        this.segments = segments;
        this.ownBootstrap = ownBootstrap;
        this.bootForeign = bootForeign;
        this.boot = boot;
        this.control = control;
        this.controls = new CmiMapping[env.size()];
        this.controls[env.rank()] = control.map();
        this.debug = debug;
        this.departures = new Departures(ctx, boot, env.rank(), env.size());
        this.barrierTargets = Dissemination.targets(env.rank(), env.procNode());
        this.waker = "poll".equals(System.getenv("SMI_WAKER")) ? new PollingWaker(ctx, control.map(), this::checkWait)
            : new NotifyWaker(ctx, control.map(), this::checkWait);
    }

    /**
     * {@code SMI_Init}: joins the CMI node, attaches the bootstrap segment, publishes this
     * process's control segment, waits until every process did, attaches theirs and meets them at
     * a barrier.
     *
     * @param env the job
     * @param debug debug output
     * @return the job
     */
    public static Job start(JobEnv env, Debug debug) {
        CmiContext ctx;
        try {
            ctx = Cmi.init(new CmiVersion(1, 1));
        } catch (CmiException e) {
            throw Errors.fromCmi("SMI_Init: no CMI node", e);
        }
        Job job = null;
        try {
            ctx.enable(true);
            Segments segments = new Segments(ctx, env.noLocal());
            Bootstrap own = null;
            Segments.Foreign foreign = null;
            CmiMapping boot;
            if (env.bootstrap() == null) {
                own = Bootstrap.create(ctx, 1);
                boot = own.mapping();
            } else {
                foreign = segments.attach(env.bootstrap());
                boot = foreign.map();
            }
            ctx.rmb();
            if (boot.getLong(Layout.BOOT_MAGIC) != Layout.BOOT_MAGIC_VALUE || boot.getLong(Layout.BOOT_SIZE) != env.size()) {
                throw Errors.fail(SmiError.PARAM, "SMI_BOOTSTRAP is not this job's bootstrap segment");
            }
            Segments.Own control = segments.createSynchronization(Layout.CTRL_SIZE);
            control.map().putLong(Layout.CTRL_MAGIC, Layout.CTRL_MAGIC_VALUE);
            job = new Job(env, ctx, segments, own, foreign, boot, control, debug);
            job.join();
            return job;
        } catch (CmiException e) {
            if (job != null) {
                job.release();
            }
            ctx.fini();
            throw Errors.fromCmi("SMI_Init", e);
        } catch (RuntimeException e) {
            if (job != null) {
                job.release();
            }
            ctx.fini();
            throw e;
        }
    }

    private void join() {
        int rank = env.rank();
        MemorySegment entry = control.ref().encode();
        boot.put(Layout.BOOT_ENTRY + (long) rank * Layout.ENTRY_SIZE, entry);
        ctx.wmb();
        boot.putLong(Layout.BOOT_ENTRY + (long) rank * Layout.ENTRY_SIZE + SegmentRef.STATE, 1);
        ctx.wmb();
        fetchAdd(boot, Layout.BOOT_JOINED, 1);
        debug.log("joined; waiting for " + env.size() + " processes");
        Backoff b = new Backoff();
        while (true) {
            ctx.rmb();
            if (boot.getLong(Layout.BOOT_JOINED) >= env.size()) {
                break;
            }
            checkAbort();
            b.idle();
        }
        MemorySegment buf = MemorySegment.ofArray(new byte[Layout.ENTRY_SIZE]);
        for (int r = 0; r < env.size(); r++) {
            if (r == rank) {
                continue;
            }
            boot.get(Layout.BOOT_ENTRY + (long) r * Layout.ENTRY_SIZE, buf);
            SegmentRef ref = SegmentRef.decode(buf);
            if (ref == null) {
                throw Errors.fail(SmiError.OTHER, "process " + r + " joined without a control segment");
            }
            Segments.Foreign f = segments.attach(ref);
            peerControls.add(f);
            controls[r] = f.map();
        }
        debug.log("attached " + (env.size() - 1) + " peer control segments");
        barrier();
    }

    /** @return the job's environment */
    public JobEnv env() {
        return env;
    }

    /** @return the CMI context */
    public CmiContext context() {
        return ctx;
    }

    private Mutexes mutexes;

    /** @param m the job's mutexes (for the memory managers' locks) */
    public void mutexes(Mutexes m) {
        mutexes = m;
    }

    Mutexes mutexes() {
        return mutexes;
    }

    Segments segments() {
        return segments;
    }

    Waker waker() {
        return waker;
    }

    Debug debug() {
        return debug;
    }

    /** @return this process's rank */
    public int rank() {
        return env.rank();
    }

    /** @return the number of processes */
    public int size() {
        return env.size();
    }

    /**
     * One {@code atm_cas} on a word of another process's control segment (an unused word of its
     * layout): the raw round trip SMI's synchronization is built of, for benchmarks.
     *
     * @param rank the process whose segment is the target
     * @return the word's value
     */
    public long rawAtmCasRoundTrip(int rank) {
        return ctx.atmCas(controls[rank], Layout.CTRL_BENCH, 0, 0);
    }

    CmiMapping bootstrap() {
        return boot;
    }

    /**
     * @param rank a process
     * @return its control segment as attached here (this process's own for its rank)
     */
    CmiMapping control(int rank) {
        return controls[rank];
    }

    Segments.Own ownControl() {
        return control;
    }

    /**
     * Atomically adds at the segment's home: an {@code atm_cas} loop (each attempt is a barrier
     * and one round trip to the home).
     */
    long fetchAdd(CmiMapping m, long off, long delta) {
        return fetchAdd(m, off, delta, 0);
    }

    /** As {@link #fetchAdd(CmiMapping, long, long)}, starting from a likely current value. */
    long fetchAdd(CmiMapping m, long off, long delta, long likely) {
        long guess = likely;
        while (true) {
            long seen = ctx.atmCas(m, off, guess, guess + delta);
            if (seen == guess) {
                return seen;
            }
            guess = seen;
        }
    }

    /** Atomically replaces the word at the home, returning the old value; {@code guess} is the likely old value. */
    long swap(CmiMapping m, long off, long value, long guess) {
        long g = guess;
        while (true) {
            long seen = ctx.atmCas(m, off, g, value);
            if (seen == g) {
                return seen;
            }
            g = seen;
        }
    }

    /**
     * {@code SMI_Barrier}: a dissemination barrier ({@link Dissemination}, ranks interleaved by
     * node so that, with two nodes, only the first round crosses between them). In round
     * {@code i} (of ceil(log2 N)) this process posts the barrier's number into word {@code i} of
     * the control segment of the process {@code 2^i} positions on and waits until the one
     * {@code 2^i} positions back has posted it into its own, on local memory. Every process
     * makes one post per round, and after the last round it has heard, directly or through
     * others, from every process: one round trip per round on each process's critical path
     * (one for two processes), no central counter. The words only grow (barrier k posts k), so
     * a post that comes early for the next barrier is never lost. Stores before the barrier are
     * visible to every process after it: the first post releases them ({@code wmb}, done before
     * any post leaves), and the barrier ends with {@code rmb}.
     *
     * <p>While it waits, this process checks now and then that no process has finalized
     * without reaching this barrier (its heartbeat records the barriers it passed): such a
     * barrier can never complete, and this process ends as the watchdog ends it for a dead one.
     */
    public void barrier() {
        long k = ++barriers;
        int n = env.size();
        if (n == 1) {
            ctx.mb();
            return;
        }
        waitingAt = k;
        try {
            for (int round = 0; round < barrierTargets.length; round++) {
                long word = Layout.CTRL_BARRIER_ROUND + 8L * round;
                waker.post(controls[barrierTargets[round]], word, k);
                waker.awaitLocal(word, v -> v >= k);
            }
        } finally {
            waitingAt = 0;
        }
        ctx.rmb();
    }

    /** The barrier this process waits at, 0 if none; read by {@link #checkWait}. */
    private volatile long waitingAt;

    /**
     * Run now and then by every wait once it has waited long enough to block (never on its fast
     * path): ends the job if some process called {@code SMI_Abort} ({@link #checkAbort}); in a
     * barrier, ends it if some process finalized after fewer barriers than this one (it will never
     * reach it); and in a wait for a partner (a signal, a mutex, a progress counter, a small
     * message or its read, a PT2PT rendezvous), throws {@code OTHER} if the partner entered
     * {@code SMI_Finalize} and the wait's condition is still false ({@link Departures#check}).
     *
     * @param partner the process whose action ends the wait, {@link Departures#ANY} or {@link Departures#NONE}
     * @param satisfied the wait's condition, read again
     */
    void checkWait(int partner, BooleanSupplier satisfied) {
        checkAbort();
        departures.check(partner, satisfied);
        long k = waitingAt;
        if (k == 0) {
            return;
        }
        long[] hb = heartbeats();
        for (int r = 0; r < hb.length; r++) {
            if (r != env.rank() && Layout.isFinished(hb[r]) && Layout.barriersPassed(hb[r]) < k) {
                terminate(1, "SMI watchdog: process " + r + " finalized after " + Layout.barriersPassed(hb[r])
                    + " barriers; this process waits at barrier " + k + ", which can never complete");
            }
        }
    }

    /**
     * {@code SMI_Q_SCI_CONNECTION_STATE}.
     *
     * @return whether the bootstrap segment's home answers
     */
    public boolean bootstrapReachable() {
        try {
            ctx.rmb();
            boot.getLong(Layout.BOOT_MAGIC);
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /**
     * Ends the job now if some process called {@code SMI_Abort}; called by waits now and then.
     */
    void checkAbort() {
        long v;
        try {
            ctx.rmb();
            v = boot.getLong(Layout.BOOT_ABORT);
        } catch (RuntimeException e) {
            terminate(1, "the job's bootstrap segment is gone (" + e.getMessage() + ")");
            return;
        }
        if (v != 0 && !aborting) {
            terminate((int) (v & 0xff), "another process called SMI_Abort");
        }
    }

    /** The thread that ends this process ({@link #terminate}), null until one does. */
    private final AtomicReference<Thread> ending = new AtomicReference<>();

    /** Set once this process called {@code SMI_Abort}. */
    private volatile boolean aborting;

    /**
     * @param r run when the job ends abnormally ({@code SMI_Watchdog_callback})
     */
    public void abnormalEnd(Runnable r) {
        abnormalEnd = r;
    }

    /**
     * {@code SMI_Abort}: posts the code for every process, then ends this one.
     *
     * @param code the exit code
     */
    public void abort(int code) {
        aborting = true; // this process's own watchdog must not report the abort as another's
        try {
            ctx.atmCas(boot, Layout.BOOT_ABORT, 0, 0x100 | (code & 0xff));
        } catch (RuntimeException ignored) {
            // The job is going anyway.
        }
        terminate(code, "SMI_Abort(" + code + ")");
    }

    /**
     * Ends this process: runs the watchdog callback, flushes the standard streams and halts. An
     * SMI application that aborts must not return (manual §4: {@code SMI_Abort} never returns),
     * which is why library code ends the JVM here; the daemon reclaims the process's segments
     * when its connection closes.
     *
     * <p>Several threads may find the job ending at once (a wait's check and the watchdog's beat,
     * both seeing an abort): the first runs the callback and halts; the others wait for that
     * halt, so the callback runs once. A call from the callback itself halts at once.
     *
     * @param code exit code
     * @param why logged on standard error
     */
    void terminate(int code, String why) {
        Thread me = Thread.currentThread();
        if (!ending.compareAndSet(null, me)) {
            if (ending.get() != me) {
                while (true) {
                    LockSupport.park(this);
                }
            }
            System.out.flush();
            System.err.flush();
            Runtime.getRuntime().halt(code);
        }
        try {
            abnormalEnd.run();
        } catch (RuntimeException e) {
            System.err.println("smi: watchdog callback failed: " + e);
        }
        System.err.println("smi[" + env.rank() + "]: " + why + "; ending with exit code " + code);
        System.out.flush();
        System.err.flush();
        Runtime.getRuntime().halt(code);
    }

    /**
     * Writes this process's heartbeat (called by the watchdog thread, which is associated with
     * the context).
     */
    void heartbeat(long value) {
        boot.putLong(Layout.BOOT_HEARTBEAT + 8L * env.rank(), value);
        ctx.wmb();
    }

    long[] heartbeats() {
        ctx.rmb();
        // Bulk transfers take byte-array (or native) memory.
        MemorySegment buf = MemorySegment.ofArray(new byte[8 * env.size()]);
        boot.get(Layout.BOOT_HEARTBEAT, buf);
        long[] hb = new long[env.size()];
        for (int r = 0; r < hb.length; r++) {
            hb[r] = buf.get(ValueLayout.JAVA_LONG_UNALIGNED, 8L * r);
        }
        return hb;
    }

    /**
     * {@code SMI_Finalize}'s start, before its barriers: tells the other processes that this one
     * makes no more SMI calls, so their waits for it fail instead of blocking for ever
     * ({@link Departures}). Ends the process, as {@link #checkAbort} does, if the bootstrap
     * segment is gone.
     */
    public void departing() {
        try {
            departures.announce();
        } catch (RuntimeException e) {
            terminate(1, "the job's bootstrap segment is gone (" + e.getMessage() + ")");
        }
    }

    /**
     * {@code SMI_Finalize}'s end: a last barrier, then this process's segments go.
     */
    public void finish() {
        barrier();
        heartbeat(Layout.finished(barriers));
        release();
        ctx.fini();
    }

    private void release() {
        for (Segments.Foreign f : peerControls) {
            segments.detach(f);
        }
        peerControls.clear();
        segments.destroy(control);
        if (bootForeign != null) {
            segments.detach(bootForeign);
        }
        if (ownBootstrap != null) {
            ownBootstrap.close();
        }
    }
}
