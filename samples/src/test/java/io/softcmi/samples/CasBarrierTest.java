package io.softcmi.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiVersion;
import io.softcmi.cmi.notify.WaitWindow;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link CasBarrier} with three contexts of the embedded node (each on its own thread, as
 * separate processes would be): after every round each party sees every other party's store of
 * that round, the releaser wakes the others through their wake segments (a waiter that arrives
 * long before the last party blocks in its inbox and is still released), and every wake segment
 * ends with the last round released and nobody counted as sleeping.
 */
class CasBarrierTest {
    private static final int PARTIES = 3;
    private static final int ROUNDS = 300;

    @Test
    @Timeout(120)
    void shouldReleaseEveryRoundOnlyAfterEveryPartysStoresAndLeaveTheWakeWordsClean() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(PARTIES);
        CyclicBarrier setup = new CyclicBarrier(PARTIES);
        long[] ids = new long[PARTIES + 1]; // the wake segments, then the counter and data segment
        try {
            List<Future<long[]>> results = new ArrayList<>();
            for (int p = 0; p < PARTIES; p++) {
                int rank = p;
                results.add(threads.submit(() -> party(rank, ids, setup)));
            }
            long slept = 0;
            for (Future<long[]> f : results) {
                long[] wakeWords = f.get(100, TimeUnit.SECONDS);
                assertEquals((1 + 2 * ROUNDS) * (PARTIES - 1), wakeWords[0],
                    "every other party's every arrival, in every wake segment");
                assertEquals(0, wakeWords[1], "nobody marked as sleeping");
                slept += wakeWords[2];
            }
            assertTrue(slept > 0, "the late arrivals had the others block in their inboxes");
        } finally {
            threads.shutdownNow();
        }
    }

    /** One party: stores its round number, meets the others, checks theirs; returns its wake words. */
    private static long[] party(int rank, long[] ids, CyclicBarrier setup) throws Exception {
        CmiContext c = Cmi.init(new CmiVersion(1, 1));
        try {
            c.enable(true);
            CmiSegment wakeSegment = c.segGet(4096, Set.of());
            CmiMapping wake = c.segAt(wakeSegment, Set.of());
            ids[rank] = wakeSegment.id();
            if (rank == 0) {
                ids[PARTIES] = c.segGet(4096, Set.of()).id(); // departures at 8, data from 64
            }
            setup.await(30, TimeUnit.SECONDS);
            CmiMapping shared = c.segAt(c.segFromId(ids[PARTIES]), Set.of());
            List<CmiMapping> others = new ArrayList<>();
            for (int q = 0; q < PARTIES; q++) {
                if (q != rank) {
                    others.add(c.segAt(c.segFromId(ids[q]), Set.of()));
                }
            }
            CasBarrier barrier = new CasBarrier(c, shared, 0, PARTIES, 60_000, wake, others);
            barrier.await();
            for (int round = 1; round <= ROUNDS; round++) {
                shared.putLong(64 + 8L * rank, round);
                if (round % 50 == rank) {
                    // Arrive long after the others: they stop polling and block in their inboxes.
                    LockSupport.parkNanos(2 * WaitWindow.MAX_NANOS + ThreadLocalRandom.current().nextLong(1_000_000));
                }
                barrier.await();
                for (int q = 0; q < PARTIES; q++) {
                    assertEquals(round, shared.getLong(64 + 8L * q), "party " + q + "'s store, seen by " + rank);
                }
                barrier.await(); // nobody stores the next round before everyone has checked this one
            }
            if (rank == 0) {
                barrier.awaitDepartures(PARTIES - 1);
            } else {
                barrier.depart();
            }
            return new long[] {wake.getLong(CasBarrier.ARRIVALS) & ~CasBarrier.SLEEPING,
                wake.getLong(CasBarrier.ARRIVALS) & CasBarrier.SLEEPING, barrier.stats.slept()};
        } finally {
            c.fini();
        }
    }
}
