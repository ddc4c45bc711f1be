package io.softcmi.cmi.internal;

import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * When a thread that waits for the next message of a stream (a context's notice reader, a home's
 * data-path I/O loop) polls instead of blocking: the engine's <b>arrival window</b>
 * ({@code docs/architecture.md} 7.5). The waiter records each arrival ({@link #arrived()}); from
 * the times between arrivals it keeps a moving average of the recent interval, and when it is
 * about to wait it asks {@link #pollUntil()}: while messages have been coming at short intervals
 * (the average at most {@code capNanos}), it polls until {@code K} intervals after the last
 * arrival, at most {@code capNanos} after it; otherwise (an idle stream, a slow one, or the last
 * arrival longer ago than that) it blocks at once, as before. So a stream that has just been
 * fast, such as a ping-pong whose every message crosses this waiter, pays no wake-up of a parked
 * thread while it stays fast, and a quiet waiter costs no CPU: it polls at most one window after
 * its last message.
 *
 * <p>The machine's load decides first ({@link PollBudget}'s rules, not a second set): nothing
 * polls where polling is off ({@code -Dsoftcmi.poll=false}), while this JVM's pollers back off
 * after one was descheduled ({@link PollBudget#contended()}), or while threads wait for a core
 * ({@link PollBudget#crowded()}, from {@code /proc/loadavg}), or while no core looks idle
 * ({@link PollBudget#idleCore()}, as for the answer window of {@code NoticeSpin}: a window may
 * last a whole round trip, and the threads that the awaited message must cross first need the
 * cores; on a 2-core VM, forcing the window on made the VMMC ping-pong 2-3.7 times slower). The caller still takes this JVM's
 * poller slot ({@link PollBudget#startPolling()}) and stops on preemption
 * ({@link PollBudget#stillScheduled}), like every poll loop of the engine. Modelled on the
 * "spin while work is likely close" phase of Aeron's {@code BackoffIdleStrategy}, with the
 * length taken from the measured inter-arrival time instead of a fixed count.
 *
 * <p>Not thread-safe: one instance per waiting thread.
 */
public final class ArrivalWindow {
    /** The window is this many average intervals after the last arrival (jitter of the next one). */
    public static final int K = 2;
    /** Default longest window and longest interval that counts as short: {@value} ns. */
    public static final long DEFAULT_CAP_NANOS = 200_000;
    /** System property {@value}: the cap in microseconds (0 turns the arrival window off). */
    public static final String CAP_PROPERTY = "softcmi.arrivalWindowMicros";
    /** A gap longer than this many caps is counted as this many caps (one long pause must not outweigh the rest). */
    private static final int GAP_CLAMP = 4;
    private final long capNanos;
    private final LongSupplier clock;
    private final BooleanSupplier busy;
    /** {@code clock} of the last arrival; valid once {@link #arrivals} is at least 1. */
    private long lastArrival;
    private long arrivals;
    /** Moving average of the recent intervals (a quarter of each new one); starts long, i.e. block. */
    private long interval;

    /**
     * A window with the cap of {@link #CAP_PROPERTY} (default {@link #DEFAULT_CAP_NANOS}), the
     * system clock, and {@link PollBudget}'s load rules.
     *
     * @return a new window for one waiting thread
     */
    public static ArrivalWindow fromProperties() {
        long micros = Long.getLong(CAP_PROPERTY, DEFAULT_CAP_NANOS / 1000);
        return new ArrivalWindow(Math.max(0, micros) * 1000, System::nanoTime, ArrivalWindow::machineBusy);
    }

    /**
     * @param capNanos longest window, and longest average interval for which the waiter polls (0: never poll)
     * @param clock nanosecond clock ({@link System#nanoTime} but in tests)
     * @param busy whether the machine's load forbids polling now (checked on each {@link #pollUntil()})
     */
    public ArrivalWindow(long capNanos, LongSupplier clock, BooleanSupplier busy) {
        this.capNanos = capNanos;
        this.clock = clock;
        this.busy = busy;
        this.interval = GAP_CLAMP * Math.max(1, capNanos);
    }

    /**
     * @return whether {@link PollBudget}'s rules forbid polling now: polling off, pollers backing
     *     off, threads waiting for a core, or no idle core ({@link PollBudget#idleCore()}: a window
     *     may last a whole round trip, and the threads the message must cross first need the cores)
     */
    public static boolean machineBusy() {
        return !PollBudget.enabled() || PollBudget.contended() || PollBudget.crowded() || !PollBudget.idleCore();
    }

    /** Records that a message (or a batch of them) arrived now. */
    public void arrived() {
        long now = clock.getAsLong();
        if (arrivals > 0) {
            long gap = Math.min(Math.max(0, now - lastArrival), GAP_CLAMP * capNanos);
            interval += (gap - interval) >> 2;
        }
        lastArrival = now;
        arrivals++;
    }

    /**
     * The waiter is about to wait: until when to poll first.
     *
     * @return the deadline (on the clock) until which to poll, or 0 to block at once
     */
    public long pollUntil() {
        if (capNanos == 0 || arrivals < 2 || interval > capNanos) {
            return 0;
        }
        long until = lastArrival + Math.min(K * interval, capNanos);
        long now = clock.getAsLong();
        if (until - now <= 0 || busy.getAsBoolean()) {
            return 0;
        }
        return until == 0 ? 1 : until;
    }

    /** @return the moving average of the recent intervals between arrivals, in nanoseconds */
    public long interval() {
        return interval;
    }
}
