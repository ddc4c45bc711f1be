package io.softcmi.node;

/**
 * Tells a failure detector that it itself stood still ({@code SIGSTOP}, a long pause of the
 * process, a machine too busy to schedule it): a detector that could not look cannot blame its
 * peers for the silence it did not watch. The detector calls {@link #look(long)} right before it
 * judges each peer; when more time than the tolerance passed since the previous look, the
 * silence was the detector's own and every peer deserves a fresh chance (issue 8, the hung-home
 * case: a home daemon resumed after {@code SIGCONT} must not suspect its importers for the
 * heartbeats it did not answer while it was stopped).
 *
 * <p>Not thread-safe: one detector thread looks.
 */
final class StillnessWatch {
    private final long toleranceNanos;
    private long lastLook;

    /**
     * @param toleranceNanos the longest gap between two looks that is still normal (the judging
     *     interval plus a margin)
     * @param now {@link System#nanoTime()} when watching starts
     */
    StillnessWatch(long toleranceNanos, long now) {
        if (toleranceNanos <= 0) {
            throw new IllegalArgumentException("tolerance must be positive: " + toleranceNanos);
        }
        this.toleranceNanos = toleranceNanos;
        this.lastLook = now;
    }

    /**
     * Records a look.
     *
     * @param now {@link System#nanoTime()} now
     * @return how long the detector stood still past the tolerance, ns, or 0 if it did not
     */
    long look(long now) {
        long gap = now - lastLook;
        lastLook = now;
        return gap > toleranceNanos ? gap - toleranceNanos : 0;
    }
}
