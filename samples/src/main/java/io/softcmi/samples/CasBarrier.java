package io.softcmi.samples;

import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.direct.DirectViews;
import io.softcmi.cmi.notify.NotificationInbox;
import io.softcmi.cmi.notify.Notifications;
import io.softcmi.cmi.notify.WaitWindow;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A barrier for {@code parties} processes built from {@code atm_cas} (the Jacobi sample's, see
 * docs/cache.md "The Jacobi sample"). Each process owns a small <b>wake segment</b> (created by its
 * own context, exported {@code CMI_SEG_WRITE_THROUGH}) whose word {@link #ARRIVALS} counts the
 * other parties' arrivals. Arrival {@code k} (counted from 1) of a process is one {@code atm_cas}
 * increment of that word in every other party's wake segment (one round trip to each other
 * node, at the word's home); the process then waits until its own word counts
 * {@code k * (parties - 1)} arrivals. The last party to arrive thus releases each of the others
 * with its increment itself, half a round trip after it arrives, and finds its own word complete
 * when its increments return: no central counter, no second store, nobody polls remote memory.
 *
 * <p>A waiter watches its own word, which is local memory: it polls for about twice its recent
 * waits ({@link WaitWindow}: 100 µs to 3 ms, a few looks only while waits are longer), then
 * sets the word's {@link #SLEEPING} bit with a compare-and-swap on its local memory, and blocks
 * in its context's notification inbox. The arriving party's increment is a compare-and-swap on the
 * same word, so exactly one of the two goes first (no fences to reason about): either the
 * waiter's swap fails because the count changed (it looks again), or the increment returns
 * the word with the bit set and the arriving party sends the waiter a notification. On a
 * machine with fewer cores than processes, the cores go to the computing processes and to the
 * daemons that serve them, not to polls of remote memory.
 *
 * <p>Memory order: {@code atm_cas} is a release (this process's stores are written back and
 * acknowledged before the increment shows) and an acquire; a waiter runs {@code rmb} once its
 * word is complete, so lines cached before the other parties' releases are dropped.
 *
 * <p>The counter segment given to the constructor holds the departure count only
 * ({@link #depart}, {@link #awaitDepartures}).
 */
final class CasBarrier {
    /** Offset of the arrival count in a wake segment (the low 62 bits of the word). */
    static final long ARRIVALS = 0;
    /** The bit of the {@link #ARRIVALS} word that says that its owner sleeps in its inbox. */
    static final long SLEEPING = 1L << 62;
    /** Longest park between two looks at the departure count. */
    static final long MAX_PARK_NANOS = 50_000;
    private static final Duration TAKE = Duration.ofMillis(5);
    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();
    private final CmiContext context;
    private final CmiMapping mapping;
    private final long offset;
    private final int parties;
    private final long timeoutNanos;
    private final MemorySegment wake;
    private final List<CmiMapping> others;
    /** The value of each other party's word that this process last saw (its guess for the next increment). */
    private final long[] seen;
    private final NotificationInbox inbox;
    private long arrivals;
    /** How long a wait polls its wake word before it blocks. */
    private final WaitWindow window = new WaitWindow();
    /** What the waits cost (the {@code PHASES} line). */
    final BarrierStats stats = new BarrierStats();

    /**
     * @param context the calling process's context
     * @param mapping the mapping of the segment that holds the departure count (local or imported)
     * @param offset the departure count's byte offset (8-aligned; it and the next word initially 0)
     * @param parties processes that meet at the barrier
     * @param timeoutMillis the longest one wait may take
     * @param wake this process's wake segment (created by {@code context}, attached writable, word 0 zero)
     * @param others the other parties' wake segments (write-through imports or local attaches)
     */
    CasBarrier(CmiContext context, CmiMapping mapping, long offset, int parties, long timeoutMillis, CmiMapping wake,
            List<CmiMapping> others) {
        this.context = context;
        this.mapping = mapping;
        this.offset = offset;
        this.parties = parties;
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        this.wake = DirectViews.view(wake);
        this.others = List.copyOf(others);
        this.seen = new long[others.size()];
        this.inbox = Notifications.inbox(context);
    }

    /**
     * Arrives and waits for the other parties' arrivals of the same round.
     *
     * @throws IllegalStateException if they do not come within the timeout
     */
    void await() {
        long start = System.nanoTime();
        arrivals++;
        for (int q = 0; q < others.size(); q++) {
            arrive(q);
        }
        long incremented = System.nanoTime();
        stats.arrival(incremented - start);
        long target = arrivals * (parties - 1);
        boolean last = complete(target);
        // The last party's own word is complete when its increments return; the others poll
        // their local word (a store by the home lands there at once), then block.
        if (!last && !WaitWindow.poll(window.budget(), start, () -> complete(target))) {
            long deadline = start + timeoutNanos;
            while (!complete(target)) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("barrier round " + arrivals + ": " + (word() & ~SLEEPING)
                        + " of " + target + " arrivals after " + timeoutNanos / 1_000_000 + " ms");
                }
                sleep(target);
            }
        }
        if (!last) {
            window.ended(System.nanoTime() - start);
        }
        context.rmb();
        stats.await(System.nanoTime() - start, last);
    }

    /** @return this process's arrival word (a load of its own memory) */
    private long word() {
        return (long) WORD.getVolatile(wake, ARRIVALS);
    }

    /** @return whether this process's word counts {@code target} arrivals */
    private boolean complete(long target) {
        return (word() & ~SLEEPING) >= target;
    }

    /**
     * Adds this process's arrival to party {@code q}'s word with {@code atm_cas} (the release and
     * an acquire), and notifies {@code q} if the word said that it sleeps.
     */
    private void arrive(int q) {
        CmiMapping m = others.get(q);
        long guess = seen[q];
        long was;
        while ((was = context.atmCas(m, ARRIVALS, guess, guess + 1)) != guess) {
            guess = was;
        }
        seen[q] = (guess + 1) & ~SLEEPING;
        if ((guess & SLEEPING) != 0) {
            try {
                Notifications.notify(m, ARRIVALS, arrivals);
            } catch (io.softcmi.cmi.CmiAccessException | IllegalStateException gone) {
                // The last round: the sleeper woke by its timeout, saw its word complete, left
                // and removed its segment. Nobody waits there any more.
            }
        }
    }

    /**
     * Blocks in the inbox until notified (or a short timeout), unless the word counts
     * {@code target} arrivals: sets the {@link #SLEEPING} bit with a compare-and-swap (which
     * fails if an arrival came meanwhile: then it looks again), blocks, and clears the bit.
     */
    private void sleep(long target) {
        if (inbox.size() > 0) {
            stats.stale();
        }
        long w = word();
        if ((w & ~SLEEPING) >= target || !WORD.compareAndSet(wake, ARRIVALS, w, w | SLEEPING)) {
            return;
        }
        try {
            boolean timedOut = inbox.take(TAKE) == null;
            stats.slept(timedOut, timedOut && complete(target));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted at the barrier", e);
        } finally {
            long v;
            do {
                v = word();
            } while (!WORD.compareAndSet(wake, ARRIVALS, v, v & ~SLEEPING));
        }
    }

    /**
     * Says that this process is done with the barrier: adds one to the departure count (the
     * word after {@code offset}). The process that homes the counter segment (and whose wake
     * segment the others' last arrivals and notifications reach) waits for the others'
     * departures ({@link #awaitDepartures}) before it removes them.
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
