package io.softcmi.samples;

import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A counting barrier for {@code parties} processes built from {@code atm_cas} on one 8-byte word
 * of a segment (and a departure count in the next word) (the Jacobi sample's, see docs/cache.md): arrival {@code k} (counted from 1) of a
 * process waits until the word reaches {@code k * parties}. The segment is exported
 * {@code CMI_SEG_WRITE_THROUGH}, so waiting polls the home with plain loads (one round trip each
 * from another node, a shared-memory load on the home's node) and never has to invalidate the
 * process's cached lines to see the counter move.
 *
 * <p>Memory order: {@code atm_cas} is a release (this process's stores are written back and
 * acknowledged before the increment shows) and an acquire; once the count is complete the
 * waiter runs {@code rmb}, so lines cached before the other parties' releases are dropped.
 *
 * <p>Waiting backs off: a few polls with {@link Thread#onSpinWait()}, then parking for a time
 * that doubles from 1 us up to {@link #MAX_PARK_NANOS}, so a waiter neither keeps a core nor
 * floods the home with requests on a machine with fewer cores than processes.
 */
final class CasBarrier {
    /** Longest park between two polls of the counter. */
    static final long MAX_PARK_NANOS = 50_000;
    private static final int SPINS = 64;
    private final CmiContext context;
    private final CmiMapping mapping;
    private final long offset;
    private final int parties;
    private final long timeoutNanos;
    private long arrivals;

    /**
     * @param context the calling process's context
     * @param mapping the mapping of the segment that holds the counter (local or imported)
     * @param offset the counter's byte offset (8-aligned; it and the next word initially 0)
     * @param parties processes that meet at the barrier
     * @param timeoutMillis the longest one wait may take
     */
    CasBarrier(CmiContext context, CmiMapping mapping, long offset, int parties, long timeoutMillis) {
        this.context = context;
        this.mapping = mapping;
        this.offset = offset;
        this.parties = parties;
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    }

    /**
     * Arrives and waits for the other parties' arrivals of the same round.
     *
     * @throws IllegalStateException if they do not come within the timeout
     */
    void await() {
        arrivals++;
        long target = arrivals * parties;
        increment(offset, target - parties);
        long deadline = System.nanoTime() + timeoutNanos;
        long park = 1_000;
        int polls = 0;
        while (mapping.getLong(offset) < target) {
            if (++polls <= SPINS) {
                Thread.onSpinWait();
                continue;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("barrier round " + arrivals + ": the count stays at "
                    + mapping.getLong(offset) + " < " + target + " after " + timeoutNanos / 1_000_000 + " ms");
            }
            LockSupport.parkNanos(park);
            park = Math.min(2 * park, MAX_PARK_NANOS);
        }
        context.rmb();
    }

    /**
     * Says that this process is done with the barrier's segment: adds one to the departure count
     * (the word after the counter). The process that homes the segment waits for the others'
     * departures ({@link #awaitDepartures}) before it removes it, since a party may still be
     * polling the counter after the last round is complete.
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

    /** Adds one to the word at {@code at} with {@code atm_cas}; {@code guess} is its likely value. */
    private void increment(long at, long guess) {
        long seen = guess;
        long was;
        while ((was = context.atmCas(mapping, at, seen, seen + 1)) != seen) {
            seen = was;
        }
    }
}
