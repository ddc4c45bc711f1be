package io.softcmi.cmi.internal;

/**
 * How long a thread that waits for network input may poll before it blocks: the waiting
 * strategy of both ends of the remote data path ({@code docs/architecture.md}, "Waiting").
 *
 * <p>Polling pays only when the awaited bytes are likely to arrive soon and a core is free to
 * poll on: waking a parked thread costs 60-130 us on an idle small VM, a loopback round trip
 * about 10 us, but on a machine whose cores are all busy a spinner steals the time of the
 * threads doing the work (and of the peer that is to answer), while a blocked reader is woken by
 * preemption in about 15 us. So:
 * <ul>
 *   <li>the budget follows the recent waits: a moving average of how long the last waits that
 *       ended with data took, times {@link #FACTOR}, when that is within the configured
 *       maximum; when recent waits were longer than that, only a short probe of
 *       {@link #MIN_NANOS} (so the budget grows again once replies come fast);</li>
 *   <li>a poll loop that sees a gap of {@link #PREEMPTED_NANOS} between two of its iterations
 *       was descheduled: every core is busy. It stops at once and, JVM-wide, nobody polls for
 *       the next {@link #BACKOFF_NANOS}: threads block and are woken by the kernel instead.</li>
 *   <li>at most {@link #MAX_POLLERS} threads of a JVM poll at once ({@link #startPolling()}):
 *       with many waiters, the others block at once.</li>
 * </ul>
 * Not thread-safe: one instance per waiting role (a connection's reader, an I/O loop), except
 * the JVM-wide contention flag, which is a plain volatile.
 */
public final class PollBudget {
    /** The budget is this many times the recent average wait. */
    public static final int FACTOR = 4;
    /** Smallest budget, so that a cold connection still polls for a first reply. */
    public static final long MIN_NANOS = 20_000;
    /** A gap between two poll iterations this long means the poller was descheduled. */
    public static final long PREEMPTED_NANOS = 50_000;
    /** After a preemption, nobody in this JVM polls for this long. */
    public static final long BACKOFF_NANOS = 20_000_000;
    /** Every this many waits, a poller whose recent waits were long still probes briefly. */
    public static final int PROBE_EVERY = 16;
    /** Threads of this JVM that may poll at the same time: half the cores, at least one. */
    public static final int MAX_POLLERS = Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
    private static final java.util.concurrent.atomic.AtomicInteger POLLERS = new java.util.concurrent.atomic.AtomicInteger();
    /** System property {@value}: {@code false} turns polling off (every wait blocks), to measure the choice. */
    public static final String POLL_PROPERTY = "softcmi.poll";
    private static final boolean POLL = !"false".equals(System.getProperty(POLL_PROPERTY));
    private static volatile long contendedUntil;
    private final long maxNanos;
    private long averageWait = MIN_NANOS;
    private int waits;

    /**
     * @param maxNanos the largest budget (0: never poll)
     */
    public PollBudget(long maxNanos) {
        this.maxNanos = maxNanos;
    }

    /** @return nanoseconds to poll before blocking, now */
    public long budget() {
        if (!POLL || maxNanos == 0 || System.nanoTime() - contendedUntil < 0) {
            return 0;
        }
        long b = averageWait * FACTOR;
        if (b <= maxNanos) {
            return Math.max(MIN_NANOS, b);
        }
        // Waits longer than we would poll: polling would only burn a core (with many waiters,
        // many cores), except for an occasional short probe that notices when replies become
        // fast again.
        return ++waits % PROBE_EVERY == 0 ? Math.min(maxNanos, MIN_NANOS) : 0;
    }

    /**
     * Records a wait that ended with data.
     *
     * @param nanos how long it took
     */
    public void waited(long nanos) {
        averageWait += (Math.min(nanos, 10 * maxNanos + MIN_NANOS) - averageWait) >> 3;
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
            contendedUntil = now + BACKOFF_NANOS;
            return false;
        }
        return true;
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

    /** @return whether pollers in this JVM are backing off because the cores are busy */
    public static boolean contended() {
        return System.nanoTime() - contendedUntil < 0;
    }
}
