package io.softcmi.cmi.notify;

import io.softcmi.cmi.internal.PollBudget;

/**
 * How long a thread that waits for a word of its <b>own</b> segment (one that a partner stores
 * with {@link Notifications#putAndNotifyIfWaiting}, then notifies if it sleeps) polls that word
 * before it blocks in its {@link NotificationInbox}: adaptive, from the waits it measured
 * (notification extension, not a libcmi call; docs/notifications.md "Waiting for a word",
 * docs/architecture.md 7.5). Used by the Jacobi sample's barrier and by SMI's wake-ups.
 *
 * <p>A blocked waiter is woken through several hand-overs (the home's I/O loop, the context's
 * notice reader, the waiting thread), each needing a core; on a small machine whose other core
 * computes, that costs about a millisecond, where a poll of local memory sees the store the
 * moment the home makes it. So a wait polls for about <b>twice the recent waits</b> (a moving
 * average of a quarter of each new wait, from the wait's start to the word's change, blocked
 * waits included): at least {@link #MIN_NANOS}, at most {@link #MAX_NANOS}. Waits that have
 * been longer than {@link #MAX_NANOS} (a partner that computes for much longer) do not pay for
 * a poll: it looks {@link #SHORT_LOOKS} times and blocks; a blocked wait that then ends sooner
 * brings the average, and polling, back. A poll is bounded in time and by the machine's load,
 * as {@code PollBudget} rules (docs/architecture.md 7.5):
 * <ul>
 *   <li>nothing beyond the short look with {@code -Dsoftcmi.poll=false};</li>
 *   <li>a poll past {@link #MIN_NANOS} takes the JVM's poller slot ({@code PollBudget.startPolling},
 *       half the cores), and polls only {@link #MIN_NANOS} without it;</li>
 *   <li>it spins {@link #SPINS} times, then yields between looks (the daemon that is to store the
 *       word, or a JIT thread, gets the core at once); a gap of {@link #PREEMPTED_NANOS} between
 *       two spinning looks, or of {@link #YIELD_GAP_NANOS} across a yield (the core went to
 *       other work for a whole time slice: every core is busy), ends the poll, and nobody in the
 *       JVM polls past the short look during {@code PollBudget.backOff} (1 ms after an isolated
 *       preemption, doubling up to {@code PollBudget.BACKOFF_NANOS} while they recur): the JVM's one
 *       back-off, which the data and control paths' pollers heed as well, and which their
 *       preemption tests start too.</li>
 * </ul>
 * Not thread-safe: one instance per waiting thread or role (races only cost a guess).
 */
public final class WaitWindow {
    /** The shortest poll while polling pays. */
    public static final long MIN_NANOS = 100_000;
    /** The longest poll; {@code -Dsoftcmi.notify.pollMaxMicros} sets it (0: only {@link #MIN_NANOS}). */
    public static final long MAX_NANOS = Long.getLong("softcmi.notify.pollMaxMicros", 3_000) * 1_000;
    /** Looks before blocking while waits have been longer than {@link #MAX_NANOS}. */
    public static final int SHORT_LOOKS = 64;
    /** Busy spins before a poll yields between looks. */
    public static final int SPINS = 64;
    /** A gap this long between two spinning looks means the poller was descheduled. */
    public static final long PREEMPTED_NANOS = PollBudget.PREEMPTED_NANOS;
    /** A gap this long across a yield means another thread had the core for a time slice. */
    public static final long YIELD_GAP_NANOS = 500_000;
    /** Moving average of the measured waits; starts at 0 (poll {@link #MIN_NANOS}). */
    private long typical;

    /**
     * Starts a wait.
     *
     * @return nanoseconds to poll now ({@link #MIN_NANOS} to {@link #MAX_NANOS}), or 0 for a
     *     short look of {@link #SHORT_LOOKS} looks only
     */
    public long budget() {
        if (!PollBudget.enabled() || typical > Math.max(MAX_NANOS, MIN_NANOS) || backingOff()) {
            return 0;
        }
        return Math.max(MIN_NANOS, Math.min(MAX_NANOS, 2 * typical));
    }

    /**
     * Records how long a wait took, from its start to the word's change (a wake-up included).
     *
     * @param waitedNanos the wait
     */
    public void ended(long waitedNanos) {
        typical += (Math.max(0, waitedNanos) - typical) >> 2;
    }

    /** @return the moving average of the waits, in nanoseconds */
    public long typical() {
        return typical;
    }

    /**
     * Polls: calls {@code done} until it is true or the poll ends. Takes the JVM's poller slot for a
     * budget past {@link #MIN_NANOS} (or polls only {@link #MIN_NANOS} without it).
     *
     * @param budget from {@link #budget()}
     * @param start {@link System#nanoTime()} at the wait's start
     * @param done the wait's condition (a load of local memory; it must keep the load in the loop)
     * @return whether {@code done} became true
     */
    public static boolean poll(long budget, long start, java.util.function.BooleanSupplier done) {
        if (budget == 0) {
            for (int look = 0; look < SHORT_LOOKS; look++) {
                if (done.getAsBoolean()) {
                    return true;
                }
                Thread.onSpinWait();
            }
            return false;
        }
        boolean slot = budget > MIN_NANOS && PollBudget.startPolling();
        long until = start + (slot ? budget : Math.min(budget, MIN_NANOS));
        try {
            long previous = System.nanoTime();
            for (int look = 0;; look++) {
                if (done.getAsBoolean()) {
                    return true;
                }
                long now = System.nanoTime();
                if (!keepPolling(look, until, previous, now)) {
                    return done.getAsBoolean();
                }
                previous = now;
                if (look < SPINS) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield();
                }
            }
        } finally {
            if (slot) {
                PollBudget.endPolling();
            }
        }
    }

    /**
     * Whether a poll goes on after look {@code look}: its time is not up and the poller was
     * not descheduled (which starts the JVM's back-off).
     *
     * @param look looks so far, from 0 (spinning before {@link #SPINS}, yielding after)
     * @param until {@link System#nanoTime()} at which the poll ends
     * @param previous {@link System#nanoTime()} at the previous look
     * @param now {@link System#nanoTime()} now
     * @return false to stop polling and block
     */
    static boolean keepPolling(int look, long until, long previous, long now) {
        if (now - until >= 0) {
            return false;
        }
        long gap = now - previous;
        if (gap >= (look <= SPINS ? PREEMPTED_NANOS : YIELD_GAP_NANOS)) {
            PollBudget.backOff(now);
            return false;
        }
        return true;
    }

    /** Ends a back-off (for tests). */
    static void endBackOff() {
        PollBudget.endBackOff();
    }

    /** @return whether a poll of this JVM was descheduled lately (polls are short meanwhile) */
    static boolean backingOff() {
        return PollBudget.contended();
    }
}
