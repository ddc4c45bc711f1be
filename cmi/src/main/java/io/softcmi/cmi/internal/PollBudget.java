package io.softcmi.cmi.internal;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * How long a thread that waits for network input may poll before it blocks: the waiting
 * strategy of the remote data path and the control path ({@code docs/architecture.md} 7.5).
 *
 * <p>Polling pays only when the awaited bytes are likely to arrive soon and a core is free to
 * poll on: waking a parked thread costs 60-130 us on an idle small VM against a 10 us loopback
 * round trip, but on a machine whose cores are all busy a spinner steals the time of the threads
 * doing the work (and of the peer that is to answer), while a blocked reader is woken by
 * preemption in about 15 us. So, like adaptive spinning in a lock:
 * <ul>
 *   <li><b>only while polling has been paying</b>: each waiter keeps a moving rate of its polls
 *       that saw data within the budget (and of blocked waits that ended within it: those a
 *       poll would have caught too, {@link #blocked}). While at least half did, it polls for
 *       the full budget; otherwise it blocks at once, except for one probe every
 *       {@link #PROBE_EVERY} waits that notices when replies become fast again;</li>
 *   <li><b>only while cores are free</b>: a poll loop that sees a gap of
 *       {@link #PREEMPTED_NANOS} between two of its iterations was descheduled, so every core is
 *       busy: it stops, and nobody in this JVM polls for a while ({@link #backOff}: 1 ms after
 *       an isolated preemption, doubling up to {@link #BACKOFF_NANOS} while they recur);</li>
 *   <li><b>for a waiter whose blocked wait is cheap, only while no thread waits for a
 *       core</b> ({@link #PollBudget(long, boolean)}, the data path: its blocked wait is one
 *       wake-up): the kernel's count of runnable threads ({@code /proc/loadavg}, sampled every
 *       {@link #RUNNABLE_SAMPLE_NANOS} by whichever waiter asks, averaged over the last few
 *       samples) at or above the cores plus one means that threads wait for a core
 *       ({@link #crowded()}), and such a waiter blocks at once. A poller that is not preempted
 *       still holds a core that a thread it is waiting for (the peer that is to answer) may
 *       need; the preemption test alone misses that. The control path's blocked wait costs
 *       several hand-overs between threads, so it keeps polling there;</li>
 *   <li><b>never many at once</b>: at most {@link #MAX_POLLERS} threads of a JVM poll at the
 *       same time ({@link #startPolling()}); every other waiter blocks at once;</li>
 *   <li><b>for a waiter whose blocked wait is cheap, not while as many threads of this JVM as
 *       there are cores wait for replies</b> ({@link #startWaiting()}, {@link #manyWaiting()}):
 *       their replies come as a stream, each needs a core when it comes, and a poller takes one
 *       of them. The home's I/O loop has the same rule for its connections
 *       ({@code DataIoLoop}: as many connections with recent requests as cores).</li>
 * </ul>
 * Not thread-safe: one instance per waiting role (a connection's reader, an I/O loop).
 */
public final class PollBudget {
    /** Every this many waits, a waiter whose polls have not been paying probes once. */
    public static final int PROBE_EVERY = 16;
    /** Threads of this JVM that may poll at the same time: half the cores, at least one. */
    public static final int MAX_POLLERS = Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
    /** A gap between two poll iterations this long means the poller was descheduled. */
    public static final long PREEMPTED_NANOS = 50_000;
    /**
     * The longest back-off: after a preemption, nobody in this JVM polls for
     * {@link #MIN_BACKOFF_NANOS}, doubled for each preemption that follows the last within
     * {@link #BACKOFF_RECENT} back-offs of its length, up to this.
     */
    public static final long BACKOFF_NANOS = 20_000_000;
    /** The back-off after a preemption that follows none lately (a safepoint, a stray interrupt). */
    public static final long MIN_BACKOFF_NANOS = 1_000_000;
    /** A preemption within this many of the current back-off's lengths from the last one doubles it. */
    public static final int BACKOFF_RECENT = 3;
    /** System property {@value}: {@code false} turns polling off (every wait blocks), to measure the choice. */
    public static final String POLL_PROPERTY = "softcmi.poll";
    private static final boolean POLL = !"false".equals(System.getProperty(POLL_PROPERTY));
    private static final AtomicInteger POLLERS = new AtomicInteger();
    private static final AtomicInteger WAITERS = new AtomicInteger();
    /** A request or data this recent means traffic ({@link #budgetWhileTraffic}). */
    public static final long TRAFFIC_NANOS = 200_000;
    /** Fixed-point one for {@link #hitRate}. */
    private static final int ONE = 1 << 16;
    private static volatile long contendedUntil;
    /** The length of the last back-off ({@link #backOff}). */
    private static volatile long backOffNanos = MIN_BACKOFF_NANOS;
    /** {@link System#nanoTime()} of the last preemption that started a back-off. */
    private static volatile long lastPreempted = System.nanoTime() - BACKOFF_NANOS * BACKOFF_RECENT;
    private final long maxNanos;
    private final boolean yieldToRunnable;
    private int hitRate = ONE;
    private int waits;

    /**
     * @param maxNanos the longest a waiter polls (0: never poll)
     */
    public PollBudget(long maxNanos) {
        this(maxNanos, false);
    }

    /**
     * @param maxNanos the longest a waiter polls (0: never poll)
     * @param yieldToRunnable whether to block at once while threads wait for a core
     *     ({@link #crowded()}): for waiters whose blocked wait costs one wake-up
     */
    public PollBudget(long maxNanos, boolean yieldToRunnable) {
        this.maxNanos = maxNanos;
        this.yieldToRunnable = yieldToRunnable;
    }

    /** @return nanoseconds to poll before blocking, now; 0 to block at once */
    public long budget() {
        if (!POLL || maxNanos == 0 || contended() || yieldToRunnable && (crowded() || manyWaiting())) {
            return 0;
        }
        if (hitRate >= ONE / 2 || ++waits % PROBE_EVERY == 0) {
            return maxNanos;
        }
        return 0;
    }

    /**
     * {@link #budget()} for a waiter that serves a stream of requests (a home's data-path I/O
     * loop, a node's control session; docs/architecture.md 7.5, "while traffic lasts"): while
     * the last request came within {@link #TRAFFIC_NANOS}, it polls for the full budget even
     * when its hit rate says block, unless polling is off, this JVM's pollers back off or
     * threads wait for a core ({@link #crowded()}: a poll that does not pay would then take the
     * core the peer needs to send the next request). A waiter whose rate fell (a burst that
     * began while it was parked, a preemption) would otherwise block after every request, and
     * its peer, whose next message waits for that wake-up, would see its own polls miss and
     * block too: two ends that both block never find their way back to polling.
     *
     * @param now {@link System#nanoTime()} now
     * @param lastTraffic {@link System#nanoTime()} of the last request (or data) the waiter got
     * @return nanoseconds to poll before blocking, now; 0 to block at once
     */
    public long budgetWhileTraffic(long now, long lastTraffic) {
        long limit = budget();
        if (limit == 0 && now - lastTraffic < TRAFFIC_NANOS && POLL && maxNanos > 0 && !contended() && !crowded()
                && !(yieldToRunnable && manyWaiting())) {
            return maxNanos;
        }
        return limit;
    }

    /** @return whether polling is on ({@link #POLL_PROPERTY} not {@code false}) */
    public static boolean enabled() {
        return POLL;
    }

    /** @return whether a waiter would poll now without probing: polling is on, has been paying, and cores are free */
    public boolean paying() {
        return POLL && maxNanos > 0 && hitRate >= ONE / 2 && !contended() && !(yieldToRunnable && (crowded() || manyWaiting()));
    }

    /** @return whether at least half of the recent waits hit, whatever the load (for tests) */
    boolean hitRateHigh() {
        return hitRate >= ONE / 2;
    }

    /**
     * Records how a poll ended.
     *
     * @param hit whether data came within the budget
     */
    public void polled(boolean hit) {
        hitRate += ((hit ? ONE : 0) - hitRate) >> 3;
    }

    /**
     * Records a wait that blocked without polling: if the data came within the budget anyway
     * (wake-up included), a poll would have caught it too, so it counts as a hit. A longer
     * wait says nothing (it may be the wake-up itself). Without this, two ends that both block
     * never learn that polling would pay again: each end's wait includes the other's wake-up,
     * so neither end's occasional probe catches a reply in time.
     *
     * @param waitedNanos from the start of the wait to the data
     */
    public void blocked(long waitedNanos) {
        if (waitedNanos <= maxNanos) {
            polled(true);
        }
    }

    /**
     * Call between two poll iterations.
     *
     * @param previous {@link System#nanoTime()} of the previous iteration
     * @param now {@link System#nanoTime()} now
     * @return false if the poller was descheduled (stop polling and block)
     */
    public static boolean stillScheduled(long previous, long now) {
        if (now - previous > PREEMPTED_NANOS) {
            backOff(now);
            return false;
        }
        return true;
    }

    /** A poll that has lasted this long yields its core once per {@link #YIELD_INTERVAL_NANOS} ({@link #pause}). */
    public static final long YIELD_AFTER_NANOS = 20_000;
    /** How often a poll past {@link #YIELD_AFTER_NANOS} yields its core. */
    public static final long YIELD_INTERVAL_NANOS = 20_000;

    /**
     * The pause between two looks of a poll loop: a spin-wait hint, and once the poll has lasted
     * {@link #YIELD_AFTER_NANOS}, a {@link Thread#yield()} every {@link #YIELD_INTERVAL_NANOS}.
     *
     * <p>Why the yield: the thread a poller waits for is often on the poller's own core. A
     * poller that has just written a request wakes the reader at the other end (a home's I/O loop
     * that blocked), and the kernel places a thread woken by a socket write on the writer's core,
     * expecting the writer to sleep next. A poller does not sleep: without the yield the woken
     * thread runs only when the poll ends. Found 2026-11-28 with the VMMC {@code latency} sample:
     * episodes of round trips of 2 x 200 us for the inlet's 200 us poll, 2 x 400 us for a 400 us
     * poll, and a {@code perf trace} of a blocked {@code epoll_wait} that returned 420 us after
     * the answer was written (docs/benchmarks.md, "Polling and the kernel's sync wake-ups").
     *
     * <p>Used by the remote data path's two waits, the client's reply reader and the home's I/O
     * loop: there the read miss's warm p99 was 33-71 us against 63-141 us without, its p50
     * unchanged. Not used by direct delivery's inlet or the control path: there, with both ends
     * polling and yielding, the two threads stayed on one core and the VMMC latency's p50 went
     * from 9-12 us to 18-68 us (the same section).
     *
     * <p>A yield that returns only after {@link #PREEMPTED_NANOS} gave the core to work that
     * kept it: the pause then starts the JVM's back-off ({@link #backOff}) and tells the caller to
     * stop polling, as a preemption does.
     *
     * @param pollStart {@link System#nanoTime()} when the poll began
     * @param previous {@link System#nanoTime()} at the previous look
     * @param now {@link System#nanoTime()} now
     * @return {@link System#nanoTime()} after the pause (the caller's next {@code previous}), or
     *     {@link #STOP} if the caller should stop polling
     */
    public static long pause(long pollStart, long previous, long now) {
        long elapsed = now - pollStart;
        if (elapsed < YIELD_AFTER_NANOS || elapsed / YIELD_INTERVAL_NANOS == (previous - pollStart) / YIELD_INTERVAL_NANOS) {
            Thread.onSpinWait();
            return now;
        }
        Thread.yield();
        long after = System.nanoTime();
        if (after - now > PREEMPTED_NANOS) {
            backOff(after);
            return STOP;
        }
        return after;
    }

    /** What {@link #pause} returns when the caller should stop polling (no {@code nanoTime} reading is this). */
    public static final long STOP = Long.MIN_VALUE;

    /**
     * Starts the JVM's back-off: nobody in this JVM polls for a while. The while grows with
     * preemptions in a row: {@link #MIN_BACKOFF_NANOS} after one that follows none lately, twice
     * the last back-off after one within {@link #BACKOFF_RECENT} of its lengths from the last,
     * at most {@link #BACKOFF_NANOS}. So a machine whose cores stay busy keeps pollers off for
     * the whole 20 ms after a few preemptions, while a single descheduling on a quiet machine
     * (a JVM safepoint, an interrupt, a {@link #pause} whose yield lasted) stops polling for a
     * millisecond only. (Measured 2026-11-28: the length of the back-off was not what made the
     * VMMC latency's tail; docs/benchmarks.md, "Polling and the kernel's sync wake-ups".)
     * For poll loops that judge their own gaps ({@link #stillScheduled} for the usual one; a
     * loop that yields between looks allows a longer gap, {@code WaitWindow}).
     *
     * @param now {@link System#nanoTime()} now
     */
    public static void backOff(long now) {
        long length = backOffNanos;
        long next = now - lastPreempted < BACKOFF_RECENT * length ? Math.min(2 * length, BACKOFF_NANOS) : MIN_BACKOFF_NANOS;
        backOffNanos = next;
        lastPreempted = now;
        contendedUntil = now + next;
    }

    /** @return the length of the last back-off started (for tests) */
    static long lastBackOffNanos() {
        return backOffNanos;
    }

    /** Ends a back-off at once, and forgets the preemptions before it (tests that provoke one). */
    public static void endBackOff() {
        long now = System.nanoTime();
        contendedUntil = now - 1;
        lastPreempted = now - BACKOFF_NANOS * BACKOFF_RECENT;
        backOffNanos = MIN_BACKOFF_NANOS;
    }

    /**
     * Asks to poll: at most {@link #MAX_POLLERS} threads of this JVM poll at once, so that
     * many waiting threads (many contexts, many connections) never fill the cores with spinning.
     *
     * @return true if the caller may poll now; it must then call {@link #endPolling()}
     */
    public static boolean startPolling() {
        while (true) {
            int n = POLLERS.get();
            if (n >= MAX_POLLERS) {
                return false;
            }
            if (POLLERS.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** Ends a poll that {@link #startPolling()} allowed. */
    public static void endPolling() {
        POLLERS.decrementAndGet();
    }

    /**
     * A thread of this JVM starts waiting for a reply from the network (a data-path caller,
     * whether it reads or another thread reads for it); it must call {@link #endWaiting()}.
     */
    public static void startWaiting() {
        WAITERS.incrementAndGet();
    }

    /** Ends a wait that {@link #startWaiting()} counted. */
    public static void endWaiting() {
        WAITERS.decrementAndGet();
    }

    /**
     * Whether as many threads of this JVM as there are cores wait for replies at once
     * ({@link #startWaiting()}): then a waiter whose blocked wait is cheap does not poll.
     * Measured on 2 cores (benchmarks.md, "Fan-in: no polls while as many threads wait as there
     * are cores"): with 8 or 32 contexts in a process, their one poller took a core that the
     * others' replies needed.
     *
     * @return true if {@link #CORES} or more threads of this JVM wait for replies now
     */
    public static boolean manyWaiting() {
        return WAITERS.get() >= CORES;
    }

    /** @return the number of cores this JVM sees (the threshold of {@link #manyWaiting()} and of the home's loop) */
    public static int cores() {
        return CORES;
    }

    /**
     * Whether the machine has a core to spare for a long poll: its load average (runnable
     * threads, over the last minute) is below the number of cores minus one. Taken from the same
     * sample of {@code /proc/loadavg} as {@link #crowded()}. Stricter than the preemption test
     * of {@link #stillScheduled}, which notices busy cores only once a poll loop was descheduled;
     * for polls that may last a whole round trip ({@code NoticeSpin}, {@link ArrivalWindow}).
     *
     * @return true if a core looks idle (false where the load is unknown)
     */
    public static boolean idleCore() {
        sampleIfDue();
        double load = loadAverage;
        return load >= 0 && load < CORES - 1;
    }

    /** @return whether pollers in this JVM are backing off because a poller was preempted lately */
    public static boolean contended() {
        return System.nanoTime() - contendedUntil < 0;
    }

    /** How often the count of runnable threads is sampled. */
    public static final long RUNNABLE_SAMPLE_NANOS = 10_000_000;
    private static final int CORES = Runtime.getRuntime().availableProcessors();
    private static final java.util.concurrent.atomic.AtomicLong RUNNABLE_SAMPLED_AT =
        new java.util.concurrent.atomic.AtomicLong(System.nanoTime() - RUNNABLE_SAMPLE_NANOS);
    /** Where the samples come from: {@code /proc/loadavg}; null where unknown. Replaced by tests. */
    static volatile java.util.function.Supplier<LoadSample> runnableSource = new LoadAvgReader();
    /** The last sample's one-minute load average; -1 while unknown. */
    private static volatile double loadAverage = -1;
    /** Moving average of the samples (a quarter of each new one). */
    private static volatile double runnable;

    /**
     * Whether threads wait for a core: the average count of runnable threads (this one
     * included) is at least the number of cores plus one. Samples at most every
     * {@link #RUNNABLE_SAMPLE_NANOS} (one {@code pread} of {@code /proc/loadavg}).
     *
     * @return true if polling would take a core that another thread waits for
     */
    public static boolean crowded() {
        if (!CROWDED_RULE) {
            return false;
        }
        sampleIfDue();
        return runnable >= CORES + 1;
    }

    /** System property {@value}: {@code false} ignores the runnable count ({@link #crowded()} is then always false), to measure the rule. */
    public static final String CROWDED_PROPERTY = "softcmi.poll.crowded";
    private static final boolean CROWDED_RULE = !"false".equals(System.getProperty(CROWDED_PROPERTY));

    /** Samples {@code /proc/loadavg} if the last sample is older than {@link #RUNNABLE_SAMPLE_NANOS}; one caller at a time. */
    private static void sampleIfDue() {
        long at = RUNNABLE_SAMPLED_AT.get();
        long now = System.nanoTime();
        if (now - at >= RUNNABLE_SAMPLE_NANOS && RUNNABLE_SAMPLED_AT.compareAndSet(at, now)) {
            sampleRunnable();
        }
    }

    /** Takes one sample now (tests call it to feed {@link #runnableSource}). */
    static void sampleRunnable() {
        LoadSample sample = runnableSource.get();
        if (sample == null) {
            return;
        }
        loadAverage = sample.oneMinute();
        runnable += (sample.running() - runnable) / 4;
    }

    /**
     * One reading of {@code /proc/loadavg}.
     *
     * @param oneMinute the load average over the last minute
     * @param running the threads running or runnable now (this one included)
     */
    record LoadSample(double oneMinute, int running) {
    }

    /** The one-minute load average and the running count of {@code /proc/loadavg} ("0.50 0.40 0.30 2/345 6789"), read with one pread. */
    private static final class LoadAvgReader implements java.util.function.Supplier<LoadSample> {
        private final java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate(128);
        private java.nio.channels.FileChannel file;
        private boolean unavailable;

        @Override
        public synchronized LoadSample get() {
            if (unavailable) {
                return null;
            }
            try {
                if (file == null) {
                    file = java.nio.channels.FileChannel.open(java.nio.file.Path.of("/proc/loadavg"));
                }
                buf.clear();
                int len = file.read(buf, 0);
                String text = new String(buf.array(), 0, Math.max(0, len), java.nio.charset.StandardCharsets.US_ASCII);
                String[] fields = text.split(" ");
                return new LoadSample(Double.parseDouble(fields[0]),
                    Integer.parseInt(fields[3].substring(0, fields[3].indexOf('/'))));
            } catch (java.io.IOException | RuntimeException e) {
                unavailable = true; // not Linux: only the preemption test, and no idle core
                return null;
            }
        }
    }
}
