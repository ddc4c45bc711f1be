package io.softcmi.node;

/**
 * Back-off while polling for work, after Aeron's idle strategies: spin for a short time (a
 * request usually arrives within microseconds during a burst), then yield, then tell the caller
 * to block. Waking a parked thread costs ~100 us on small VMs, so the data path polls first;
 * idle connections still give the cores back.
 */
final class IdleStrategy {
    private final long spinNanos;
    private final long yieldNanos;
    private long idleSince = -1;

    IdleStrategy(long spinNanos, long yieldNanos) {
        this.spinNanos = spinNanos;
        this.yieldNanos = yieldNanos;
    }

    /** Work was done: start over with spinning. */
    void reset() {
        idleSince = -1;
    }

    /**
     * Nothing to do this time.
     *
     * @return true when the caller should now block until work arrives
     */
    boolean idle() {
        long now = System.nanoTime();
        if (idleSince < 0) {
            idleSince = now;
        }
        long idle = now - idleSince;
        if (idle < spinNanos) {
            Thread.onSpinWait();
            return false;
        }
        if (idle < spinNanos + yieldNanos) {
            Thread.yield();
            return false;
        }
        return true;
    }
}
