package io.softcmi.systemtests;

import java.time.Duration;

/**
 * A point in time by which something must have happened. Every wait in the system tests is
 * bounded by one; durations are scaled by the system property {@code softcmi.test.timeoutFactor}
 * (slow CI machines get more time, never a different outcome).
 */
final class Deadline {
    /** Multiplies every timeout; set by the build ({@code softcmi.test.timeoutFactor}). */
    static final double FACTOR = Math.max(1.0, Double.parseDouble(System.getProperty("softcmi.test.timeoutFactor", "1")));

    private final long endNanos;
    private final Duration length;

    private Deadline(Duration length) {
        this.length = length;
        this.endNanos = System.nanoTime() + length.toNanos();
    }

    /**
     * @param d an unscaled duration
     * @return {@code d} times {@link #FACTOR}
     */
    static Duration scaled(Duration d) {
        return Duration.ofNanos((long) (d.toNanos() * FACTOR));
    }

    /**
     * @param d an unscaled duration from now
     * @return the deadline {@code scaled(d)} from now
     */
    static Deadline in(Duration d) {
        return new Deadline(scaled(d));
    }

    /** @return whether the deadline has passed */
    boolean expired() {
        return System.nanoTime() - endNanos >= 0;
    }

    /** @return time left, zero once expired */
    Duration remaining() {
        long left = endNanos - System.nanoTime();
        return left <= 0 ? Duration.ZERO : Duration.ofNanos(left);
    }

    /** @return milliseconds left, at least 1 so that it can be given to timed waits */
    long remainingMillis() {
        return Math.max(1, remaining().toMillis());
    }

    @Override
    public String toString() {
        return length.toMillis() + " ms";
    }
}
