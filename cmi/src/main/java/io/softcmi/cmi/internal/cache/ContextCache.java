package io.softcmi.cmi.internal.cache;

import io.softcmi.wire.ControlMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

/**
 * A context's caches of imported segments, shared by all its threads, and the barriers over
 * them ({@code docs/cache.md}): releases write dirty lines back and wait for the homes'
 * acknowledgements, acquires drop lines others wrote. Requests to several homes and segments
 * are all sent before any is awaited.
 *
 * <p>A background thread bounds how long a store stays invisible without a barrier: every
 * {@link #WRITE_BACK_PERIOD_MS} it writes back dirty lines (a failure raises a store-failure
 * event through the segment's callback) and, once {@link #REFRESH_PERIOD_MS} have passed since
 * the last acquire over every cache (the program's {@code mb}, {@code atm_cas} or {@code rmb}, or
 * its own), it runs one on every cache that holds lines, so even a loop that never calls a
 * barrier sees other nodes' stores within about {@code WRITE_BACK_PERIOD_MS + REFRESH_PERIOD_MS}
 * plus two round trips, and a program whose own barriers acquire more often than that costs it
 * no refresh at all.
 * While no line is dirty it does not wake every write-back period: it sleeps until a store
 * dirties a line (the store wakes it, {@link #dirtied}, and the line is written back one
 * period later) or until the next acquire or report is due. On a machine whose cores all
 * compute, each needless wake-up takes a core from a computing thread.
 * Every {@link #REPORT_PERIOD_MS} it also hands the context's figures ({@link #figures()}) to
 * the reporter, if they changed since the last report it took (the node daemon shows them in
 * {@code cmiadm caches}).
 */
public final class ContextCache implements AutoCloseable {
    /** Background write-back period (ms), property {@code softcmi.cache.writeBackMs}. */
    public static final long WRITE_BACK_PERIOD_MS = Long.getLong("softcmi.cache.writeBackMs", 2);
    /** Background acquire period (ms), property {@code softcmi.cache.refreshMs}. */
    public static final long REFRESH_PERIOD_MS = Long.getLong("softcmi.cache.refreshMs", 10);
    /** Period (ms) of the figures sent to the node, property {@code softcmi.cache.reportMs}. */
    public static final long REPORT_PERIOD_MS = Long.getLong("softcmi.cache.reportMs", 1000);

    private final CacheStats stats = new CacheStats(CacheStats.process());
    private final CopyOnWriteArrayList<SegmentCache> caches = new CopyOnWriteArrayList<>();
    private final String name;
    /** Whether {@link #add} starts the background thread (tests drive a cache without it). */
    private final boolean withBackground;
    private final Object reportLock = new Object();
    private volatile Thread background;
    private volatile boolean closed;
    /** Whether the background thread sleeps until a store dirties a line ({@link #dirtied}). */
    private volatile boolean idle;
    /**
     * {@link System#nanoTime()} when the last acquire over every cache started: {@link #acquireAll},
     * {@link #startAcquireOn} (whose {@link #finishAcquire} covers the rest), {@link #deferAcquireAll}.
     */
    private volatile long lastAcquire = System.nanoTime();
    /** Background refreshes run (tests). */
    private final java.util.concurrent.atomic.AtomicLong refreshes = new java.util.concurrent.atomic.AtomicLong();
    /** Times a store woke the idle background thread (tests). */
    private final java.util.concurrent.atomic.AtomicLong storeWakeUps = new java.util.concurrent.atomic.AtomicLong();
    /** Takes a report and says whether it went out; null when nobody listens. */
    private volatile Predicate<ControlMessage.CacheReport> reporter;
    /** The last report the reporter took. Guarded by {@link #reportLock}. */
    private ControlMessage.CacheReport lastReport;

    /** @param name for the background thread's name */
    public ContextCache(String name) {
        this(name, true);
    }

    /** @param name for the background thread's name @param withBackground whether to run the background thread */
    ContextCache(String name, boolean withBackground) {
        this.withBackground = withBackground;
        this.name = name;
    }

    /**
     * @return a new cache id for the homes' directories (random, never 0): one per segment cache.
     *     The home skips a cache's own writes when it answers that cache's acquire, so two caches
     *     of one segment (one context attaching it twice) must not share an id, or each would keep
     *     lines the other wrote.
     */
    public static long newCacheId() {
        long id;
        do {
            id = ThreadLocalRandom.current().nextLong();
        } while (id == 0);
        return id;
    }

    /** @return this context's counters (they add to {@link CacheStats#process()} too) */
    public CacheStats stats() {
        return stats;
    }

    /** @return whether any import is cached (barriers have network work only then) */
    public boolean active() {
        return !caches.isEmpty();
    }

    /** @return bytes the caches hold (lines and write masks) */
    public long memoryBytes() {
        long n = 0;
        for (SegmentCache c : caches) {
            n += c.memoryBytes();
        }
        return n;
    }

    /** @return the bound on resident bytes of every cache, summed ({@code CMI_CTL_CACHE_RSEG_SET}) */
    public long capacityBytes() {
        long n = 0;
        for (SegmentCache c : caches) {
            n += c.capacityBytes();
        }
        return n;
    }

    /**
     * The context's cache figures now, as the node is told them: state (caches, lines, bytes,
     * capacity) and this context's counters.
     *
     * @return the figures
     */
    public ControlMessage.CacheReport figures() {
        long resident = 0;
        long dirty = 0;
        long memory = 0;
        long capacity = 0;
        int count = 0;
        for (SegmentCache c : caches) {
            count++;
            resident += c.residentLines();
            dirty += c.dirtyLines();
            memory += c.memoryBytes();
            capacity += c.capacityBytes();
        }
        CacheStats s = stats;
        return new ControlMessage.CacheReport(count, resident, dirty, memory, capacity, s.misses.sum(), s.fills.sum(),
            s.fillBytes.sum(), s.writeBackLines.sum(), s.diffs.sum(), s.diffBytes.sum(), s.acquires.sum(),
            s.invalidations.sum(), s.evictions.sum(), s.backgroundWriteBacks.sum());
    }

    /**
     * Sets who is told the figures every {@link #REPORT_PERIOD_MS} while they change. It runs on
     * the background thread, so it must not block: it answers false when it could not send now
     * (the same figures are offered again next period).
     *
     * @param reporter takes a report, or null to stop reporting
     */
    public void reportTo(Predicate<ControlMessage.CacheReport> reporter) {
        this.reporter = reporter;
    }

    /** Registers a new segment cache; starts the background thread with the first. */
    public synchronized void add(SegmentCache c) {
        c.onFirstDirty(this::dirtied);
        caches.add(c);
        if (background == null && !closed && withBackground) {
            background = Thread.ofPlatform().daemon().name("softcmi-cache-" + name).start(this::run);
        }
    }

    /** A detach: writes the segment's lines back and forgets it. */
    public void remove(SegmentCache c) {
        caches.remove(c);
        c.close();
    }

    /**
     * {@code wmb}, the release half of {@code mb} and {@code atm_cas}: writes back every dirty
     * line of the context and waits for the acknowledgements.
     *
     * @throws LineFault (write-back) if a home refused or could not be reached
     */
    public void releaseAll() {
        List<SegmentCache.Flight> all = new ArrayList<>();
        for (SegmentCache c : caches) {
            all.addAll(c.startReleaseAll());
        }
        check(all);
    }

    /** {@code flush_fb}/{@code close_fb}: the lines {@code thread} stored to. @throws LineFault as for releaseAll */
    public void releaseThread(Thread thread) {
        List<SegmentCache.Flight> all = new ArrayList<>();
        for (SegmentCache c : caches) {
            all.addAll(c.startReleaseThread(thread));
        }
        check(all);
    }

    private static void check(List<SegmentCache.Flight> all) {
        if (all.isEmpty()) {
            return;
        }
        SegmentCache.Outcome o = SegmentCache.finish(all);
        if (o.status() != 0) {
            throw new LineFault(o.status(), o.failedOffsets().length > 0 ? o.failedOffsets()[0] : 0, true);
        }
    }

    /** Acquires started early, and the caches they belong to. */
    public record EarlyAcquire(List<SegmentCache> caches, List<SegmentCache.AcquireFlight> flights) {
    }

    /**
     * The acquire half of {@code atm_cas}, first part, called right after the CAS request was
     * sent on {@code route} and before its reply: starts the acquires of the caches whose
     * requests travel on the same route. The home serves them after the CAS, so they see what
     * the CAS saw, and their round trip overlaps the CAS's. Acquires to other homes must wait
     * for the CAS's reply ({@link #finishAcquire}).
     *
     * @param route the CAS's route (its home), or null
     * @return the acquires started
     */
    public EarlyAcquire startAcquireOn(Object route) {
        lastAcquire = System.nanoTime();
        List<SegmentCache> on = new ArrayList<>();
        List<SegmentCache.AcquireFlight> flights = new ArrayList<>();
        if (route != null) {
            for (SegmentCache c : caches) {
                if (route.equals(c.route())) {
                    on.add(c);
                    flights.add(c.startAcquire());
                }
            }
        }
        return new EarlyAcquire(on, flights);
    }

    /**
     * The acquire half of {@code atm_cas}, second part, after the CAS's reply: starts the
     * acquires of every other cache, then waits for all of them and drops what others wrote.
     *
     * @param early what {@link #startAcquireOn} started
     */
    public void finishAcquire(EarlyAcquire early) {
        List<SegmentCache> order = new ArrayList<>(early.caches());
        List<SegmentCache.AcquireFlight> flights = new ArrayList<>(early.flights());
        for (SegmentCache c : caches) {
            if (!early.caches().contains(c)) {
                order.add(c);
                flights.add(c.startAcquire());
            }
        }
        for (int i = 0; i < order.size(); i++) {
            order.get(i).finishAcquire(flights.get(i));
        }
    }

    /**
     * {@code rmb}: queues an acquire for every cache and returns without writing or waiting;
     * each cache's next access sends it and waits for its reply ({@link SegmentCache#deferAcquire}).
     */
    public void deferAcquireAll() {
        lastAcquire = System.nanoTime(); // each cache's next access settles it, sent at the latest then
        for (SegmentCache c : caches) {
            c.deferAcquire();
        }
    }

    /** The acquire half of {@code mb} and {@code atm_cas}, and the background refresh. */
    public void acquireAll() {
        lastAcquire = System.nanoTime();
        List<SegmentCache> order = new ArrayList<>(caches);
        List<SegmentCache.AcquireFlight> flights = new ArrayList<>();
        for (SegmentCache c : order) {
            flights.add(c.startAcquire());
        }
        for (int i = 0; i < order.size(); i++) {
            order.get(i).finishAcquire(flights.get(i));
        }
    }

    /**
     * A cache's first line turned dirty: wakes the background thread if it sleeps until then.
     * The count of dirty lines is written (volatile) before this reads {@link #idle}, and the
     * background thread writes {@code idle} before it reads the counts, so one of the two sees
     * the other.
     */
    private void dirtied() {
        if (idle) {
            Thread t = background;
            if (t != null) {
                storeWakeUps.incrementAndGet();
                LockSupport.unpark(t);
            }
        }
    }

    /** @return whether the background thread sleeps until a store (tests) */
    boolean idle() {
        return idle;
    }

    /** @return background refreshes run so far (tests) */
    long refreshes() {
        return refreshes.get();
    }

    /** @return times a store woke the sleeping background thread (tests) */
    long storeWakeUps() {
        return storeWakeUps.get();
    }

    /**
     * While no cache holds a dirty line: sleeps until a store dirties one ({@link #dirtied}) or
     * until {@code due}.
     *
     * @param due {@link System#nanoTime()} at which the next acquire or report is due
     * @return true if nothing was dirty throughout and {@code due} has come (the caller goes
     *     straight to its acquire); false if a line is dirty (the caller waits one write-back
     *     period first, as for any dirty line)
     */
    private boolean sleepWhileClean(long due) {
        idle = true;
        try {
            if (anyDirty()) {
                return false;
            }
            long wait = due - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(this, wait);
            }
            return !anyDirty() && System.nanoTime() - due >= 0;
        } finally {
            idle = false;
        }
    }

    private boolean anyDirty() {
        for (SegmentCache c : caches) {
            if (c.dirtyLines() > 0) {
                return true;
            }
        }
        return false;
    }

    private void run() {
        long lastReportAt = System.nanoTime();
        while (!closed) {
            long due = Math.min(lastAcquire + REFRESH_PERIOD_MS * 1_000_000, lastReportAt + REPORT_PERIOD_MS * 1_000_000);
            boolean cleanUntilDue = sleepWhileClean(due);
            if (closed) {
                break;
            }
            if (!cleanUntilDue) {
                LockSupport.parkNanos(WRITE_BACK_PERIOD_MS * 1_000_000);
            }
            for (SegmentCache c : caches) {
                try {
                    List<SegmentCache.Flight> f = c.startReleaseAll();
                    if (!f.isEmpty()) {
                        stats.backgroundWriteBacks.increment();
                        SegmentCache.Outcome o = SegmentCache.finish(f);
                        if (o.status() != 0) {
                            c.reportLost(o.failedOffsets());
                        }
                    }
                } catch (RuntimeException e) {
                    // A miss-free write-back cannot fault; a detached mapping's cache just went away.
                }
            }
            if (System.nanoTime() - lastAcquire >= REFRESH_PERIOD_MS * 1_000_000) {
                refreshes.incrementAndGet();
                try {
                    acquireAll(); // sets lastAcquire
                } catch (RuntimeException e) {
                    // An acquire that fails drops the lines instead; nothing to report.
                }
            }
            if (System.nanoTime() - lastReportAt >= REPORT_PERIOD_MS * 1_000_000) {
                lastReportAt = System.nanoTime();
                report();
            }
        }
    }

    /**
     * Offers the figures to the reporter if they changed since it last took them (the background
     * thread calls this every {@link #REPORT_PERIOD_MS}).
     *
     * @return whether a report went out
     */
    boolean report() {
        Predicate<ControlMessage.CacheReport> r = reporter;
        if (r == null) {
            return false;
        }
        synchronized (reportLock) {
            ControlMessage.CacheReport now = figures();
            if (now.equals(lastReport)) {
                return false;
            }
            try {
                if (r.test(now)) {
                    lastReport = now;
                    return true;
                }
            } catch (RuntimeException e) {
                // Figures are advisory: a connection that fails is the context's problem, not the cache's.
            }
            return false;
        }
    }

    /** Ends the background thread and writes every cache back (failures become store-failure events). */
    @Override
    public void close() {
        closed = true;
        Thread t;
        synchronized (this) {
            t = background;
        }
        if (t != null) {
            LockSupport.unpark(t);
        }
        for (SegmentCache c : caches) {
            remove(c);
        }
    }
}
