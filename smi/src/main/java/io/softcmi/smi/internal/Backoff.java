package io.softcmi.smi.internal;

import java.util.concurrent.locks.LockSupport;

/**
 * The idle strategy of every SMI wait that polls: a few busy spins, then yields, then sleeps that
 * double from 5 µs up to 200 µs. It never spins unboundedly: a waiter that is not woken within
 * microseconds costs at most one poll per 200 µs.
 */
final class Backoff {
    private static final int SPINS = 64;
    private static final int YIELDS = 16;
    private static final long MIN_PARK_NS = 5_000;
    private static final long MAX_PARK_NS = 200_000;

    private int count;
    private long parkNs = MIN_PARK_NS;

    void reset() {
        count = 0;
        parkNs = MIN_PARK_NS;
    }

    void idle() {
        if (count < SPINS) {
            count++;
            Thread.onSpinWait();
        } else if (count < SPINS + YIELDS) {
            count++;
            Thread.yield();
        } else {
            LockSupport.parkNanos(parkNs);
            parkNs = Math.min(MAX_PARK_NS, parkNs * 2);
        }
    }
}
