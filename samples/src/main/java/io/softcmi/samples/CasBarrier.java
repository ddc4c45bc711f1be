package io.softcmi.samples;

import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.notify.NotificationInbox;
import io.softcmi.cmi.notify.Notifications;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A counting barrier for {@code parties} processes built from {@code atm_cas} on one 8-byte word
 * of a segment (and a departure count in the next word) (the Jacobi sample's, see docs/cache.md):
 * arrival {@code k} (counted from 1) of a process completes the round when its increment brings
 * the word to {@code k * parties}.
 *
 * <p>Nobody polls the counter. Each process owns a small <b>wake segment</b> (created by its own
 * context, exported {@code CMI_SEG_WRITE_THROUGH}): word {@link #ROUND} holds the last round
 * released to it, word {@link #SLEEPERS} says whether its owner is blocked. The process whose increment
 * completes a round stores the round into every other party's wake segment with
 * {@link Notifications#putAndNotifyIfWaiting} (one round trip to each other node; a notification
 * only to an owner that sleeps). A waiter watches its own word, which is local memory: it spins,
 * then yields, for at most {@link #POLL_NANOS}, then counts itself in {@code SLEEPERS}, fences,
 * looks again and blocks in its context's notification inbox (the handshake of SMI's
 * {@code NotifyWaker}). On a machine with fewer cores than processes, the cores go to the
 * computing processes and to the daemons that serve them, not to polls of remote memory.
 *
 * <p>Memory order: {@code atm_cas} is a release (this process's stores are written back and
 * acknowledged before the increment shows) and an acquire; a waiter runs {@code rmb} once its
 * round is released, so lines cached before the other parties' releases are dropped.
 */
final class CasBarrier {
    /** Offset of the released round in a wake segment. */
    static final long ROUND = 0;
    /** Offset of the owner's sleeping flag in a wake segment. */
    static final long SLEEPERS = 8;
    /** How long a waiter watches its own wake word before it blocks in the inbox. */
    static final long POLL_NANOS = 100_000;
    /** Longest park between two looks at the departure count. */
    static final long MAX_PARK_NANOS = 50_000;
    private static final int SPINS = 64;
    private static final Duration TAKE = Duration.ofMillis(5);
    private final CmiContext context;
    private final CmiMapping mapping;
    private final long offset;
    private final int parties;
    private final long timeoutNanos;
    private final CmiMapping wake;
    private final List<CmiMapping> others;
    private final NotificationInbox inbox;
    private final MemorySegment word = MemorySegment.ofArray(new long[1]);
    private long arrivals;

    /**
     * @param context the calling process's context
     * @param mapping the mapping of the segment that holds the counter (local or imported)
     * @param offset the counter's byte offset (8-aligned; it and the next word initially 0)
     * @param parties processes that meet at the barrier
     * @param timeoutMillis the longest one wait may take
     * @param wake this process's wake segment (created by {@code context}, attached writable, words 0)
     * @param others the other parties' wake segments (write-through imports or local attaches)
     */
    CasBarrier(CmiContext context, CmiMapping mapping, long offset, int parties, long timeoutMillis, CmiMapping wake,
            List<CmiMapping> others) {
        this.context = context;
        this.mapping = mapping;
        this.offset = offset;
        this.parties = parties;
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        this.wake = wake;
        this.others = List.copyOf(others);
        this.inbox = Notifications.inbox(context);
    }

    /**
     * Arrives and waits for the other parties' arrivals of the same round.
     *
     * @throws IllegalStateException if they do not come within the timeout
     */
    void await() {
        arrivals++;
        long target = arrivals * parties;
        if (increment(offset, target - parties) + 1 == target) {
            release(arrivals);
            return; // the increment was the acquire
        }
        long deadline = System.nanoTime() + timeoutNanos;
        long pollUntil = System.nanoTime() + POLL_NANOS;
        for (int n = 0; !released(); n++) {
            if (System.nanoTime() - pollUntil < 0) {
                // The releaser's store lands before its notification: catch it without the wake-up hops.
                if (n < SPINS) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield();
                }
                continue;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("barrier round " + arrivals + ": released " + wake.getLong(ROUND)
                    + ", the counter at " + mapping.getLong(offset) + " < " + target + " after "
                    + timeoutNanos / 1_000_000 + " ms");
            }
            sleep();
        }
        context.rmb();
    }

    /** @return whether this process's wake word shows the current round (a local load) */
    private boolean released() {
        VarHandle.acquireFence(); // keeps the load in the loop; the CMI acquire comes once, at the end
        return wake.getLong(ROUND) >= arrivals;
    }

    /**
     * Blocks in the inbox until notified (or a short timeout): first says so in {@code SLEEPERS}
     * and looks again after a full fence, so that a releaser either sees the flag (and notifies)
     * or its store is seen here.
     */
    private void sleep() {
        wake.putLong(SLEEPERS, 1);
        VarHandle.fullFence();
        try {
            if (!released()) {
                inbox.take(TAKE);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted at the barrier", e);
        } finally {
            wake.putLong(SLEEPERS, 0);
        }
    }

    /**
     * Stores {@code round} into every other party's wake segment, notifying those that sleep (and
     * into this process's own, so that every wake word holds the last round its owner saw released).
     */
    private void release(long round) {
        wake.putLong(ROUND, round);
        word.set(ValueLayout.JAVA_LONG, 0, round);
        for (CmiMapping m : others) {
            Notifications.putAndNotifyIfWaiting(m, ROUND, word, ROUND, round, SLEEPERS);
        }
    }

    /**
     * Says that this process is done with the barrier's segment: adds one to the departure count
     * (the word after the counter). The process that homes the segment waits for the others'
     * departures ({@link #awaitDepartures}) before it removes it, since a party may still be
     * using the counter after the last round is complete.
     */
    void depart() {
        increment(offset + 8, 0);
    }

    /**
     * Waits until {@code count} processes have {@linkplain #depart() departed}.
     *
     * @throws IllegalStateException if they do not within the timeout
     */
    void awaitDepartures(int count) {
        long deadline = System.nanoTime() + timeoutNanos;
        while (mapping.getLong(offset + 8) < count) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("only " + mapping.getLong(offset + 8) + " of " + count + " departed");
            }
            LockSupport.parkNanos(MAX_PARK_NANOS);
        }
    }

    /**
     * Adds one to the word at {@code at} with {@code atm_cas}; {@code guess} is its likely value.
     *
     * @return the value before the increment
     */
    private long increment(long at, long guess) {
        long seen = guess;
        long was;
        while ((was = context.atmCas(mapping, at, seen, seen + 1)) != seen) {
            seen = was;
        }
        return seen;
    }
}
