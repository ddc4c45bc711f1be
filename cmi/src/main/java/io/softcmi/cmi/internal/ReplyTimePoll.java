package io.softcmi.cmi.internal;

/**
 * How long a control-path waiter polls before it blocks, decided from the wait times it
 * measured and the latest load sample: the waiting rule of the control connection, used by the
 * caller that reads its own reply ({@link NodeChannel}) and by the daemon's session reading the
 * next request ({@link PollingReader}); {@code docs/architecture.md} 7.5, "The control path".
 *
 * <p>Every wait is measured, however it was waited, from its start to the arrival of the data
 * (a reply read by the context's reader thread counts when that thread read it). A moving
 * average of those times (a quarter of each new one; one sample counts at most
 * twice the expected wait plus {@link #MIN_BUDGET_NANOS}, and never more than
 * {@link #SAMPLE_CAP_NANOS}, so that a stall of a few milliseconds now and then does not turn
 * polling off) is the expected wait. Nothing polls with {@code -Dsoftcmi.poll=false} or
 * while this JVM backs off after a poller saw itself preempted ({@link PollBudget#contended()}:
 * every core is busy). Otherwise the waiter polls
 * <ul>
 *   <li><b>while the machine had a free core in the last sample</b> (the kernel's count of
 *       running and runnable threads in {@code /proc/loadavg}, one {@code pread} every 10 ms, was
 *       at most the number of cores: {@link PollBudget#freeCore()}; not the one-minute load
 *       average, which lags by a minute) <b>and the expected wait is short</b>, at most
 *       {@link #POLL_BELOW_NANOS}: for twice the expected wait, between {@link #MIN_BUDGET_NANOS}
 *       and {@link #MAX_BUDGET_NANOS}, long enough to catch a reply from a peer that must first
 *       wake up;</li>
 *   <li><b>while threads wait for a core</b>, only the shortest poll, {@link #MIN_BUDGET_NANOS},
 *       and only while the expected wait is within it: a poll that would outlast it holds a core
 *       that the peer may need;</li>
 *   <li>otherwise, while a core is free, <b>once every {@link #PROBE_EVERY} waits a probe</b> of
 *       {@link #MAX_BUDGET_NANOS}. A blocked wait overstates the peer's answer time by this
 *       waiter's own wake-up (two thread hand-overs on each end of the control path), so a probe
 *       that catches its data replaces the average by what it measured: a run that fell back to
 *       blocking on a busy machine polls again within a few waits once a core is free.</li>
 * </ul>
 * Why not the hit rate of fixed 50 us polls ({@link PollBudget}): when both ends of a control
 * connection block, a reply takes longer than 50 us (the peer's wake-ups), so the probes of each
 * end missed, the rate stayed low and both ends stayed blocked for whole runs (four thread
 * wake-ups per call; benchmarks.md, "Control calls: why runs stayed blocked").
 *
 * <p>Thread-safe (callers of one {@link NodeChannel} share one); cheap when uncontended.
 */
public final class ReplyTimePoll {
    /** Shortest poll. */
    public static final long MIN_BUDGET_NANOS = 50_000;
    /** Longest poll, and the length of a probe. */
    public static final long MAX_BUDGET_NANOS = 250_000;
    /** A waiter polls while its expected wait is at most this. */
    public static final long POLL_BELOW_NANOS = MAX_BUDGET_NANOS / 2;
    /** A waiter that does not poll probes once in this many waits (while a core is free). */
    public static final int PROBE_EVERY = 16;
    /** Longest wait one sample counts for, whatever the expectation. */
    public static final long SAMPLE_CAP_NANOS = 4 * MAX_BUDGET_NANOS;

    /** Expected wait in nanoseconds; 0 at first, so a fresh waiter polls. */
    private long expected;
    private int sinceProbe;
    private boolean probing;

    /**
     * The poll budget for a wait starting now, from this JVM's view of the machine.
     *
     * @return nanoseconds to poll before blocking; 0 to block at once
     */
    public long budget() {
        return budget(PollBudget.enabled() && !PollBudget.contended(), PollBudget.freeCore());
    }

    /**
     * The decision itself, given the machine's state (tests feed it).
     *
     * @param allowed polling is on and this JVM does not back off after a preemption
     * @param freeCore the last load sample showed no thread waiting for a core (else only the
     *     shortest poll, and no probe)
     * @return nanoseconds to poll before blocking; 0 to block at once
     */
    synchronized long budget(boolean allowed, boolean freeCore) {
        probing = false;
        if (!allowed) {
            return 0;
        }
        if (expected <= POLL_BELOW_NANOS) {
            sinceProbe = 0;
            return freeCore ? Math.clamp(2 * expected, MIN_BUDGET_NANOS, MAX_BUDGET_NANOS)
                : expected <= MIN_BUDGET_NANOS ? MIN_BUDGET_NANOS : 0;
        }
        if (freeCore && ++sinceProbe >= PROBE_EVERY) {
            sinceProbe = 0;
            probing = true;
            return MAX_BUDGET_NANOS;
        }
        return 0;
    }

    /**
     * Records how long a wait took, from its start to the arrival of the data.
     *
     * @param nanos the wait
     * @param caught whether this waiter's own poll caught the data (an exact measurement)
     */
    public synchronized void waited(long nanos, boolean caught) {
        // One sample counts at most twice the expectation (plus the shortest poll): a stall of a
        // few milliseconds now and then (a preempted peer) moves it by a quarter, a lasting
        // slowdown raises it by a quarter per wait.
        long sample = Math.clamp(nanos, 0, Math.min(SAMPLE_CAP_NANOS, 2 * expected + MIN_BUDGET_NANOS));
        if (caught && probing) {
            expected = sample; // the blocked waits before it counted this waiter's own wake-ups
        } else {
            expected += (sample - expected) >> 2;
        }
        probing = false;
    }

    /** @return the expected wait in nanoseconds (for tests and figures) */
    public synchronized long expected() {
        return expected;
    }
}
