package io.softcmi.cmi.internal;

/**
 * When the control reader thread polls its socket instead of parking: the notification
 * extension's answer window. A process that has just sent a notification often waits for one
 * back (a ping-pong, a request and its answer); the wake-up of the parked reader thread then lies
 * on that answer's path (tens of microseconds on a small VM). So after each notification the
 * process sends, {@link #expect()} opens a window in which the reader polls rather than parks.
 *
 * <p>The window is bounded by what was measured: {@link #window()} is twice the moving average
 * of the time from a send to the next notice, at most {@link #MAX_NANOS}. And the usual
 * {@link PollBudget} rules apply: the reader polls only while polling has been paying (notices
 * came within the window), only while this JVM's poller slot is free and no poll loop lately
 * saw itself descheduled (every core busy). Since such a poll may last a whole round trip, it
 * also needs {@link PollBudget#idleCore()} (a load average below the cores minus one). An idle
 * process, one whose answers come late, or any process on a busy machine parks at once.
 *
 * <p>Threads: {@link #expect()} from any sending thread; everything else on the reader thread.
 */
final class NoticeSpin {
    /** Longest window. */
    static final long MAX_NANOS = 200_000;
    /** Sends older than this are not waited for, and arrivals later than this say nothing. */
    private static final long STALE_NANOS = 2_000_000;
    private final PollBudget budget = new PollBudget(MAX_NANOS);
    /** {@link System#nanoTime} of the latest send that opened a window, 0 when none is open. */
    private volatile long sentAt;
    /** Whether the reader would poll now (read by senders, to decide whether to wake it). */
    private volatile boolean worthWaking = true;
    /** Moving average of send-to-notice times (reader only). */
    private long average = MAX_NANOS / 4;

    /**
     * A notification was sent: opens a window.
     *
     * @return whether the reader should be woken to poll for the answer
     */
    boolean expect() {
        sentAt = System.nanoTime();
        return worthWaking && PollBudget.idleCore();
    }

    /**
     * The reader is about to wait: how long to poll first.
     *
     * @return the deadline ({@link System#nanoTime}) until which to poll, or 0 to park at once
     */
    long pollUntil() {
        long sent = sentAt;
        if (sent == 0) {
            return 0;
        }
        long now = System.nanoTime();
        long until = sent + window();
        if (until - now <= 0 || !PollBudget.idleCore() || budget.budget() == 0) {
            return 0;
        }
        return until;
    }

    /** @return the window after a send: twice the measured average, at most {@link #MAX_NANOS} */
    long window() {
        return Math.min(MAX_NANOS, 2 * average);
    }

    /**
     * A poll ended.
     *
     * @param hit whether a notice came within the window
     */
    void polled(boolean hit) {
        budget.polled(hit);
        worthWaking = budget.paying();
    }

    /**
     * Notices arrived (polled or not): measures the time since the send and closes the window.
     *
     * @param polled whether the reader was polling (else it was parked, see {@link PollBudget#blocked})
     */
    void arrived(boolean polled) {
        long sent = sentAt;
        if (sent == 0) {
            return;
        }
        sentAt = 0;
        measured(System.nanoTime() - sent, polled);
    }

    /**
     * Records one send-to-notice time.
     *
     * @param took nanoseconds from the send to the notice
     * @param polled whether the reader was polling
     */
    void measured(long took, boolean polled) {
        if (took < 0 || took > STALE_NANOS) {
            return;
        }
        average += (took - average) >> 3;
        if (!polled) {
            budget.blocked(took <= window() ? 0 : Long.MAX_VALUE);
            worthWaking = budget.paying();
        }
    }
}
