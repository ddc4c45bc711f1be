package io.softcmi.smi.internal;

/**
 * How long an SMI waiter polls its own (local) word before it blocks in its notification inbox:
 * adaptive, like adaptive spinning in a lock. Polling catches a post without the wake-up hops
 * (tens of microseconds each on a busy machine), but on a machine whose cores are all taken a
 * poller steals the time of the very threads it waits for: the other process's computation, or
 * the daemon that is to serve the post. So a waiter polls for the full {@link #POLL_NS} only
 * <ul>
 *   <li><b>while polling has been paying</b>: a moving rate of the waits that ended within
 *       {@link #HIT_NS} (blocked ones included) is at least one half. The bound is a few poll
 *       budgets, not one: a wait that blocked includes the partner's and its own wake-ups (each
 *       can take 100 µs or more on a busy machine), which a poll on both sides would have
 *       saved; with one budget as the bound, two processes that block wait for each other's
 *       wake-ups and never poll again. Otherwise it looks {@link #SHORT_SPINS} times and blocks, except
 *       for one full poll every {@link #PROBE_EVERY} waits that notices when waits become short
 *       again;</li>
 *   <li><b>while it keeps its core</b>: a gap of {@link #PREEMPTED_NS} between two looks means
 *       the poller was descheduled, so every core is busy: it blocks at once.</li>
 * </ul>
 * Every wait is bounded in time either way. Shared by the threads of a process that wait; its
 * state is a heuristic, so races between them cost nothing but a guess.
 */
final class SpinPolicy {
    /** The longest a waiter polls before it blocks. */
    static final long POLL_NS = 100_000;
    /** A wait that ended within this long counts as one a full poll pays for. */
    static final long HIT_NS = 4 * POLL_NS;
    /** Looks before blocking while polling does not pay. */
    static final int SHORT_SPINS = 64;
    /** Busy spins before a poll yields between looks. */
    static final int SPINS = 64;
    /** Every this many waits, a waiter whose polls have not been paying polls fully once. */
    static final int PROBE_EVERY = 16;
    /** A gap this long between two looks means the poller was descheduled. */
    static final long PREEMPTED_NS = 50_000;
    private static final int ONE = 1 << 16;

    private int hitRate = ONE;
    private int waits;

    /**
     * Starts a wait.
     *
     * @return whether it may poll for the full {@link #POLL_NS} (else only {@link #SHORT_SPINS} looks)
     */
    boolean pollFully() {
        return hitRate >= ONE / 2 || ++waits % PROBE_EVERY == 0;
    }

    /**
     * Records how a wait ended.
     *
     * @param waitedNs from its start to the word's change (wake-up included)
     */
    void ended(long waitedNs) {
        int hit = waitedNs <= HIT_NS ? ONE : 0;
        hitRate += (hit - hitRate) >> 3;
    }

    /** @return the current rate of waits within the budget, 0..1 (for tests) */
    double hitRate() {
        return hitRate / (double) ONE;
    }

    /**
     * Idles between two looks of a poll and says whether to go on polling.
     *
     * @param look the number of looks so far (0 for the first)
     * @param full whether this wait polls fully ({@link #pollFully()})
     * @param start {@link System#nanoTime()} at the wait's start
     * @param previous {@link System#nanoTime()} at the previous look
     * @param now {@link System#nanoTime()} now
     * @return false to stop polling and block
     */
    static boolean keepPolling(int look, boolean full, long start, long previous, long now) {
        if (!full) {
            if (look >= SHORT_SPINS) {
                return false;
            }
            Thread.onSpinWait();
            return true;
        }
        if (now - start >= POLL_NS || now - previous >= PREEMPTED_NS) {
            return false;
        }
        if (look < SPINS) {
            Thread.onSpinWait();
        } else {
            // Gives the core to any runnable thread (the daemon that is to serve the post);
            // costs nothing when there is none.
            Thread.yield();
        }
        return true;
    }
}
