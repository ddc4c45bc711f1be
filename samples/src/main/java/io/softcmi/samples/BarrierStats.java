package io.softcmi.samples;

import java.util.Arrays;
import java.util.Locale;

/**
 * What one process's {@link CasBarrier} waits cost (the Jacobi sample's {@code PHASES} line,
 * docs/cache.md): the duration of every {@code await} and of its arrival (the {@code atm_cas}
 * increments), how many rounds this process completed itself (it arrived last), how many waits
 * blocked in the inbox, how many of those blocks ended by the inbox's timeout, how many of the
 * timeouts found the round already complete (a late wake-up), and how many blocks found a
 * notification already waiting (one that came after its round: late, not lost). Not
 * thread-safe: one barrier, one thread.
 */
final class BarrierStats {
    private long[] waits = new long[128];
    private long[] increments = new long[128];
    private int count;
    private int arrivals;
    private long last;
    private long slept;
    private long timeouts;
    private long lateWakes;
    private long stale;

    /** Records one {@code await} of {@code nanos}; {@code last} if this process arrived last. */
    void await(long nanos, boolean last) {
        if (count == waits.length) {
            waits = Arrays.copyOf(waits, count * 2);
        }
        waits[count++] = nanos;
        if (last) {
            this.last++;
        }
    }

    /** Records the arrival's increments ({@code atm_cas} round trips) of {@code nanos}. */
    void arrival(long nanos) {
        if (arrivals == increments.length) {
            increments = Arrays.copyOf(increments, arrivals * 2);
        }
        increments[arrivals++] = nanos;
    }

    /** Records a block that found a notification waiting already (one that came after its round). */
    void stale() {
        stale++;
    }

    /** Records a block in the inbox; {@code timedOut} if it ended by the timeout, {@code completeThen} if the round was complete by then. */
    void slept(boolean timedOut, boolean completeThen) {
        slept++;
        if (timedOut) {
            timeouts++;
            if (completeThen) {
                lateWakes++;
            }
        }
    }

    /** @return how many waits blocked in the inbox */
    long slept() {
        return slept;
    }

    /** Forgets what was recorded (the start barrier is not an iteration's). */
    void clear() {
        count = 0;
        arrivals = 0;
        last = slept = timeouts = lateWakes = stale = 0;
    }

    /** @return the waits and arrivals in microseconds, as {@code p50/p90/p99/max}, and the counts */
    String summary() {
        long[] w = Arrays.copyOf(waits, count);
        Arrays.sort(w);
        long[] a = Arrays.copyOf(increments, arrivals);
        Arrays.sort(a);
        return String.format(Locale.ROOT, "waits %d p50/p90/p99/max %d/%d/%d/%d us (arrival atm_cas %d/%d/%d/%d us),"
            + " last %d, slept %d, timeouts %d (%d complete by then), late notifications %d", count, at(w, 0.5),
            at(w, 0.9), at(w, 0.99), at(w, 1.0), at(a, 0.5), at(a, 0.9), at(a, 0.99), at(a, 1.0), last, slept, timeouts,
            lateWakes, stale);
    }

    private static long at(long[] sorted, double q) {
        if (sorted.length == 0) {
            return 0;
        }
        int i = (int) Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
        return sorted[i] / 1000;
    }
}
