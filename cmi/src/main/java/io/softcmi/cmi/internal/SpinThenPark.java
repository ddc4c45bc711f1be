package io.softcmi.cmi.internal;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The notification wait strategy: poll; if a notification arrived within the last
 * {@link #RECENT_NANOS}, spin (with {@link Thread#onSpinWait}) for at most {@link #SPIN_NANOS}
 * polling again, because in a burst the next one is likely close behind; then park in the
 * queue's own timed wait. An idle waiter therefore parks at once and costs no CPU, and no
 * waiter ever spins longer than {@link #SPIN_NANOS} per wait or yields in a loop.
 */
final class SpinThenPark {
    /** Longest spin before parking. */
    static final long SPIN_NANOS = 5_000;
    /** How recent the last arrival must be for a waiter to spin at all. */
    static final long RECENT_NANOS = 1_000_000;

    private SpinThenPark() {
    }

    /**
     * Takes the head of {@code queue}, waiting at most {@code timeoutNanos}.
     *
     * @param queue the queue
     * @param timeoutNanos longest wait
     * @param lastArrival {@link System#nanoTime} of the latest arrival (0 if none yet)
     * @param <T> element type
     * @return the head, or null after the timeout
     * @throws InterruptedException if interrupted while parked
     */
    static <T> T take(BlockingQueue<T> queue, long timeoutNanos, long lastArrival) throws InterruptedException {
        T head = queue.poll();
        if (head != null || timeoutNanos <= 0) {
            return head;
        }
        long start = System.nanoTime();
        if (lastArrival != 0 && start - lastArrival < RECENT_NANOS) {
            long spinUntil = start + Math.min(SPIN_NANOS, timeoutNanos);
            do {
                Thread.onSpinWait();
                head = queue.poll();
                if (head != null) {
                    return head;
                }
            } while (System.nanoTime() - spinUntil < 0);
        }
        long left = timeoutNanos - (System.nanoTime() - start);
        return left > 0 ? queue.poll(left, TimeUnit.NANOSECONDS) : queue.poll();
    }
}
