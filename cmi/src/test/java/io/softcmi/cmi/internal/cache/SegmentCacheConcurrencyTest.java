package io.softcmi.cmi.internal.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The line cache used by several threads at once, against a fake home: releases that wait for
 * another thread's write-back, misses sent while others are in flight, joined fills, and what a
 * fill in flight may not install (docs/cache.md, "Concurrent misses" and "What a fill in flight
 * may not install"). Many of these tests hold a request at the fake home to force an order;
 * the others repeat an interleaving {@link #RACE_REPS} times. The single-threaded behaviour is
 * {@link SegmentCacheTest}'s.
 */
class SegmentCacheConcurrencyTest {
    private static final int LINE = 512;
    private final CacheStats stats = new CacheStats();
    private final List<long[]> lost = new ArrayList<>();

    private SegmentCache cache(FakeHome home, long id, long capacityBytes) {
        return new SegmentCache(home.memory.length, LINE, capacityBytes, home.transport(id), stats, lost::add);
    }

    @Test
    void shouldMakeAReleaseWaitForAWriteBackAnotherThreadIsSending() throws Exception {
        FakeHome home = new FakeHome(4 * LINE);
        SegmentCache c = cache(home, 1, 1 << 20);
        c.store(8, 8, 77, false);
        home.sendGate = new CountDownLatch(1);
        home.ackGate = new CountDownLatch(1);
        // The background writer takes the dirty line and is still sending it...
        Thread background = Thread.ofPlatform().start(c::startReleaseAll);
        assertTrue(home.diffEntered.await(10, TimeUnit.SECONDS));
        // ...when a wmb on another thread finds nothing dirty: it must still wait for that diff.
        AtomicReference<List<SegmentCache.Flight>> seen = new AtomicReference<>();
        Thread wmb = Thread.ofPlatform().start(() -> seen.set(c.startReleaseAll()));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (wmb.isAlive() && wmb.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        home.sendGate.countDown();
        wmb.join(10_000);
        background.join(10_000);
        assertEquals(1, seen.get().size(), "the release must include the write-back in flight");
        assertTrue(!seen.get().getFirst().pending().done(), "not yet acknowledged");
        home.ackGate.countDown();
        assertEquals(0, SegmentCache.finish(seen.get()).status());
        assertEquals(77, home.memory[8]);
    }

    @Test
    void shouldSendAnotherThreadsMissWhileOneIsInFlight() throws Exception {
        FakeHome home = new FakeHome(8 * LINE);
        home.memory[0] = 1;
        home.memory[5 * LINE] = 5;
        SegmentCache c = cache(home, 1, 1 << 20);
        home.fillAckGate = new CountDownLatch(1);
        AtomicReference<Long> first = new AtomicReference<>();
        AtomicReference<Long> second = new AtomicReference<>();
        Thread t1 = Thread.ofPlatform().start(() -> first.set(c.load(0, 1)));
        Thread t2 = Thread.ofPlatform().start(() -> second.set(c.load(5 * LINE, 1)));
        awaitFills(home, 2, "both misses are on the wire before either reply came");
        home.fillAckGate.countDown();
        t1.join(10_000);
        t2.join(10_000);
        assertEquals(1L, first.get());
        assertEquals(5L, second.get());
    }

    @Test
    void shouldSendAnotherThreadsMissWhileABulkReadWaitsForItsFills() throws Exception {
        FakeHome home = new FakeHome(16 * LINE);
        home.memory[LINE] = 1;
        home.memory[10 * LINE] = 10;
        SegmentCache c = cache(home, 1, 1 << 20);
        byte[] bulk = new byte[4 * LINE];
        long other = missWhileHeld(home, c, () -> c.read(0, MemorySegment.ofArray(bulk)), "the bulk read's fill");
        assertEquals(1, bulk[LINE]);
        assertEquals(10L, other);
        assertEquals(2, fills(home), "no line fetched twice");
    }

    @Test
    void shouldLetAnotherThreadJoinTheFillOfABulkReadsLine() throws Exception {
        // Either thread may install the fill once it is answered; the one that joined it must get
        // its own line (2), not the fill's first (0), whichever it is. Repeated to meet both orders.
        for (int i = 0; i < 200; i++) {
            joinTheFillOfABulkReadsLine();
        }
    }

    private void joinTheFillOfABulkReadsLine() throws Exception {
        FakeHome home = new FakeHome(16 * LINE);
        home.memory[2 * LINE + 5] = 25;
        SegmentCache c = cache(home, 1, 1 << 20);
        home.fillAckGate = new CountDownLatch(1);
        byte[] bulk = new byte[4 * LINE];
        Thread reader = Thread.ofPlatform().start(() -> c.read(0, MemorySegment.ofArray(bulk)));
        awaitFills(home, 1, "the bulk read's fill");
        AtomicReference<Long> other = new AtomicReference<>();
        Thread miss = Thread.ofPlatform().start(() -> other.set(c.load(2 * LINE + 5, 1)));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (miss.getState() != Thread.State.WAITING && miss.getState() != Thread.State.TIMED_WAITING
                && miss.isAlive() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        home.fillAckGate.countDown();
        reader.join(10_000);
        miss.join(10_000);
        assertEquals(25L, other.get());
        assertEquals(25, bulk[2 * LINE + 5]);
        assertEquals(1, fills(home), "the miss waited for the bulk read's fill instead of sending its own");
    }

    @Test
    void shouldRefetchABulkReadsLinesThatAnAcquireFoundStaleWhileInFlight() throws Exception {
        FakeHome home = new FakeHome(16 * LINE);
        SegmentCache c = cache(home, 1, 1 << 20);
        assertEquals(0, c.load(12 * LINE, 1), "a resident line gives the cache an epoch");
        CountDownLatch gate = new CountDownLatch(1);
        home.fillAckGate = gate;
        byte[] bulk = new byte[2 * LINE];
        Thread reader = Thread.ofPlatform().start(() -> c.read(0, MemorySegment.ofArray(bulk)));
        awaitFills(home, 2, "the bulk read's fill");
        // The home answered the fill with 0; then another node writes 9 there, and an acquire
        // (which the bulk read no longer blocks) reports it before the fill's reply is installed.
        home.localWrite(LINE + 1, (byte) 9);
        c.finishAcquire(c.startAcquire());
        home.fillAckGate = null;
        gate.countDown();
        reader.join(10_000);
        assertEquals(9, bulk[LINE + 1], "the stale fill is dropped and its lines fetched again");
        assertEquals(9, c.load(LINE + 1, 1));
    }

    @Test
    void shouldSendAnotherThreadsMissWhileABulkWriteFillsTheLineItWritesInPart() throws Exception {
        FakeHome home = new FakeHome(16 * LINE);
        home.memory[0] = 7;
        home.memory[10 * LINE] = 10;
        SegmentCache c = cache(home, 1, 1 << 20);
        byte[] src = new byte[2 * LINE];
        java.util.Arrays.fill(src, (byte) 3);
        long other = missWhileHeld(home, c, () -> c.write(LINE / 2, MemorySegment.ofArray(src), false),
            "the fill of the line the write covers in part");
        assertEquals(10L, other);
        assertEquals(7, c.load(0, 1), "the bytes before the write come from the home");
        assertEquals(3, c.load(LINE / 2, 1));
        assertEquals(3, c.load(2 * LINE + LINE / 2 - 1, 1));
        assertEquals(0, c.load(2 * LINE + LINE / 2, 1), "the bytes after the write come from the home");
        assertEquals(0, SegmentCache.finish(c.startReleaseAll()).status());
        assertEquals(3, home.memory[LINE / 2]);
        assertEquals(7, home.memory[0], "bytes the write did not cover stay as they were");
    }

    /**
     * Runs {@code held} in a thread until its first fill is at the home (the fill's reply held),
     * then has another thread miss line 10 and checks that its fill goes out meanwhile; opens
     * the gate and waits for both.
     *
     * @return what the other thread's load of line 10's first byte returned
     */
    private static long missWhileHeld(FakeHome home, SegmentCache c, Runnable held, String heldFill)
            throws InterruptedException {
        home.fillAckGate = new CountDownLatch(1);
        Thread first = Thread.ofPlatform().start(held);
        awaitFills(home, 1, heldFill);
        AtomicReference<Long> other = new AtomicReference<>();
        Thread miss = Thread.ofPlatform().start(() -> other.set(c.load(10 * LINE, 1)));
        awaitFills(home, 2, "another thread's miss, sent while " + heldFill + " is in flight");
        home.fillAckGate.countDown();
        first.join(10_000);
        miss.join(10_000);
        return other.get();
    }

    /** Waits (at most 10 s) until the home has seen {@code n} fills. */
    private static void awaitFills(FakeHome home, int n, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (fills(home) < n && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(n, fills(home), what);
    }

    @Test
    void shouldRefetchAMissThatAnAcquireFoundStaleWhileInFlight() throws Exception {
        FakeHome home = new FakeHome(8 * LINE);
        SegmentCache c = cache(home, 1, 1 << 20);
        assertEquals(0, c.load(3 * LINE, 1), "a resident line gives the cache an epoch");
        CountDownLatch gate = new CountDownLatch(1);
        home.fillAckGate = gate;
        AtomicReference<Long> seen = new AtomicReference<>();
        Thread reader = Thread.ofPlatform().start(() -> seen.set(c.load(0, 1)));
        awaitFills(home, 2, "the miss's fill");
        // The home answered the fill with 0; then another node writes 9 there, and an acquire
        // reports it before the fill's reply is installed.
        home.localWrite(0, (byte) 9);
        c.finishAcquire(c.startAcquire());
        home.fillAckGate = null;
        gate.countDown();
        reader.join(10_000);
        assertEquals(9L, seen.get(), "the stale fill is dropped and the line fetched again");
        assertEquals(9, c.load(0, 1));
    }

    /** A miss of line 0 whose reply (epoch 0) is held by {@code gate}, in {@code reader}'s load. */
    private record HeldOldFill(FakeHome home, SegmentCache cache, CountDownLatch gate, Thread reader) { }

    /**
     * The cache is empty (no epoch). A miss of line 0 is answered at epoch 0, its reply held;
     * another node writes 9 to line 0 (epoch 1); a miss of line 3 is answered at epoch 1 and
     * installed first, so the cache's epoch is 1.
     */
    private HeldOldFill heldOldFill() throws InterruptedException {
        FakeHome home = new FakeHome(8 * LINE);
        SegmentCache c = cache(home, 1, 1 << 20);
        CountDownLatch gate = new CountDownLatch(1);
        home.fillAckGate = gate;
        Thread reader = Thread.ofPlatform().start(() -> c.load(0, 1));
        awaitFills(home, 1, "the miss of line 0, answered at epoch 0");
        home.localWrite(0, (byte) 9);
        home.fillAckGate = null;
        assertEquals(0, c.load(3 * LINE, 1), "line 3 installed at epoch 1");
        return new HeldOldFill(home, c, gate, reader);
    }

    @Test
    void shouldRefetchAMissSentBeforeAnotherFillGaveTheCacheANewerEpoch() throws Exception {
        // The acquire asks only for writes after the cache's epoch, 1. The write at 1 is older
        // than that and newer than the held fill of line 0.
        HeldOldFill held = heldOldFill();
        SegmentCache c = held.cache();
        c.finishAcquire(c.startAcquire());
        held.gate().countDown();
        held.reader().join(10_000);
        assertEquals(9, c.load(0, 1), "a load after the acquire sees the write made before it");
    }

    @Test
    void shouldNotKeepAFillOlderThanTheEpochAnAcquireAskedFrom() throws Exception {
        // As above, but the old fill of line 0 is installed while the acquire's reply travels:
        // the acquire then raises the cache's epoch past the write at 1, and no later acquire
        // reports it either.
        HeldOldFill held = heldOldFill();
        SegmentCache c = held.cache();
        FakeHome home = held.home();
        home.acquireAckGate = new CountDownLatch(1);
        SegmentCache.AcquireFlight a = c.startAcquire();
        home.acquireAckGate.countDown();
        home.acquireAckGate = null;
        held.gate().countDown();
        held.reader().join(10_000); // installs (or drops) line 0 before the acquire's reply is applied
        c.finishAcquire(a);
        assertEquals(9, c.load(0, 1), "a load after the acquire sees the write made before it");
        c.finishAcquire(c.startAcquire());
        assertEquals(9, c.load(0, 1), "and so after the next acquire");
    }

    @Test
    void shouldNotInstallAFillOverALineTheCacheWroteWholeAndEvictedMeanwhile() throws Exception {
        // A miss of line 0 is answered with 0 (reply held); this thread writes line 0 whole (no
        // fill) with 3, and evictions write it back and drop it; then the old reply comes. It
        // must not bring back bytes older than the cache's own store.
        FakeHome home = new FakeHome(8 * LINE);
        SegmentCache c = cache(home, 1, 2 * LINE);
        CountDownLatch gate = new CountDownLatch(1);
        home.fillAckGate = gate;
        Thread reader = Thread.ofPlatform().start(() -> c.load(0, 1));
        awaitFills(home, 1, "the miss of line 0");
        home.fillAckGate = null;
        byte[] src = new byte[LINE];
        java.util.Arrays.fill(src, (byte) 3);
        c.write(0, MemorySegment.ofArray(src), false);
        assertEquals(3, c.load(0, 1));
        assertEquals(0, c.load(2 * LINE, 1));
        assertEquals(0, c.load(4 * LINE, 1)); // evicts line 0, writing it back
        assertEquals(3, home.memory[0]);
        gate.countDown();
        reader.join(10_000);
        assertEquals(3, c.load(0, 1), "this thread's own store");
        c.finishAcquire(c.startAcquire());
        assertEquals(3, c.load(0, 1), "this thread's own store, after an acquire");
    }

    @Test
    void shouldNotInstallAFillSentUnderTheOldTokenAfterANewToken() throws Exception {
        // A miss is sent under a token that grants WRITE (reply held); a new token that grants
        // only READ is set, which drops every line filled under the old one; then the reply comes.
        FakeHome home = new FakeHome(8 * LINE);
        LineTransport inner = home.transport(1);
        java.util.concurrent.atomic.AtomicBoolean grantsWrite = new java.util.concurrent.atomic.AtomicBoolean(true);
        LineTransport tokened = new LineTransport() {
            @Override
            public Pending fill(long offset, byte[] dst, int dstOffset, int length) {
                Pending p = inner.fill(offset, dst, dstOffset, length);
                long write = grantsWrite.get() ? 1 : 0;
                return new Pending() {
                    @Override public int await() { return p.await(); }
                    @Override public long value() { return p.value() & ~1L | write; }
                    @Override public int received() { return p.received(); }
                    @Override public boolean done() { return p.done(); }
                };
            }
            @Override public Pending diff(MemorySegment runs) { return inner.diff(runs); }
            @Override public Pending acquire(long sinceEpoch, byte[] dst) { return inner.acquire(sinceEpoch, dst); }
        };
        SegmentCache c = new SegmentCache(home.memory.length, LINE, 1 << 20, tokened, stats, lost::add);
        CountDownLatch gate = new CountDownLatch(1);
        home.fillAckGate = gate;
        Thread reader = Thread.ofPlatform().start(() -> c.load(0, 1));
        awaitFills(home, 1, "the miss sent under the old token");
        home.fillAckGate = null;
        grantsWrite.set(false);
        c.tokenChanged();
        gate.countDown();
        reader.join(10_000);
        LineFault f = assertThrows(LineFault.class, () -> c.store(0, 1, 5, false),
            "the new token does not grant WRITE: the store goes the synchronous way");
        assertEquals(io.softcmi.wire.DataProtocol.STATUS_PERM, f.status);
    }

    /** Repetitions of each unsynchronised race below (each takes well under a millisecond to a few). */
    private static final int RACE_REPS = 100;

    @Test
    void shouldSeeEveryStoreReleasedBeforeAnAcquireWhileOtherThreadsMissAndEvict() throws Exception {
        // Another cache keeps storing and releasing an ever larger value; two reader threads each
        // note the last value released, acquire, and load it; a third thread's misses evict
        // (with room for one line, the cache empties and takes a new epoch from the next fill).
        // No reader may load less than what was released before its acquire, nor go back.
        for (int rep = 0; rep < RACE_REPS / 25; rep++) {
            seeReleasedStoresWhileOthersMissAndEvict(rep % 2 == 0 ? LINE : 2 * LINE);
        }
    }

    private void seeReleasedStoresWhileOthersMissAndEvict(long capacity) throws Exception {
        FakeHome home = new FakeHome(8 * LINE);
        SegmentCache a = cache(home, 1, capacity);
        SegmentCache b = cache(home, 2, 1 << 20);
        java.util.concurrent.atomic.AtomicLong released = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        threads.add(Thread.ofPlatform().start(() -> {
            try {
                for (long v = 1; v <= 60; v++) {
                    b.store(0, 8, v, false);
                    assertEquals(0, SegmentCache.finish(b.startReleaseAll()).status());
                    released.set(v);
                    Thread.yield();
                }
            } catch (Throwable t) {
                failures.add(t);
            } finally {
                done.set(true);
            }
        }));
        threads.add(Thread.ofPlatform().start(() -> {
            try {
                for (int i = 1; !done.get(); i++) {
                    a.load((long) (i % 8) * LINE, 8);
                }
            } catch (Throwable t) {
                failures.add(t);
            }
        }));
        for (int r = 0; r < 2; r++) {
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    long last = 0;
                    while (!done.get()) {
                        long before = released.get();
                        a.finishAcquire(a.startAcquire());
                        long v = a.load(0, 8);
                        assertTrue(v >= before, "loaded " + v + " after an acquire that followed the release of " + before);
                        assertTrue(v >= last, "loaded " + v + " after " + last);
                        last = v;
                    }
                } catch (Throwable t) {
                    failures.add(t);
                }
            }));
        }
        for (Thread t : threads) {
            t.join(20_000);
            assertTrue(!t.isAlive(), "a thread of the race is stuck");
        }
        assertEquals(List.of(), failures);
    }

    @Test
    void shouldKeepItsOwnWholeLineWriteWhileAnotherThreadsMissOfItTravels() throws Exception {
        // Unsynchronised form of shouldNotInstallAFillOverALineTheCacheWroteWholeAndEvictedMeanwhile.
        for (int rep = 0; rep < RACE_REPS; rep++) {
            FakeHome home = new FakeHome(8 * LINE);
            SegmentCache c = cache(home, 1, 2 * LINE);
            Thread reader = Thread.ofPlatform().start(() -> c.load(0, 1));
            byte[] src = new byte[LINE];
            java.util.Arrays.fill(src, (byte) 3);
            c.write(0, MemorySegment.ofArray(src), false);
            c.load(2 * LINE, 1);
            c.load(4 * LINE, 1); // line 0, oldest but for the reader's fill, is written back and evicted
            reader.join(10_000);
            assertEquals(3, c.load(0, 1), "this thread's own store, repetition " + rep);
        }
    }

    @Test
    void shouldGiveEachThreadItsLineOrTheFaultWhenAJoinedFillFails() throws Exception {
        // A bulk read's fill fails; a load of one of its lines joins it. Each gets the line's
        // bytes (a fill of its own after the failed one) or the fault, never other bytes, never stuck.
        for (int rep = 0; rep < RACE_REPS; rep++) {
            FakeHome home = new FakeHome(16 * LINE);
            home.memory[2 * LINE + 5] = 25;
            LineTransport inner = home.transport(1);
            java.util.concurrent.atomic.AtomicInteger sent = new java.util.concurrent.atomic.AtomicInteger();
            LineTransport failingFirst = new LineTransport() {
                @Override public Pending fill(long offset, byte[] dst, int dstOffset, int length) {
                    Pending p = inner.fill(offset, dst, dstOffset, length);
                    return sent.getAndIncrement() == 0 ? new FakeHome.Done(6, 0, 0) : p;
                }
                @Override public Pending diff(MemorySegment runs) { return inner.diff(runs); }
                @Override public Pending acquire(long sinceEpoch, byte[] dst) { return inner.acquire(sinceEpoch, dst); }
            };
            SegmentCache c = new SegmentCache(home.memory.length, LINE, 1 << 20, failingFirst, stats, lost::add);
            byte[] bulk = new byte[4 * LINE];
            AtomicReference<Object> bulkOutcome = new AtomicReference<>();
            AtomicReference<Object> loadOutcome = new AtomicReference<>();
            Thread reader = Thread.ofPlatform().start(() -> {
                try {
                    c.read(0, MemorySegment.ofArray(bulk));
                    bulkOutcome.set(bulk[2 * LINE + 5]);
                } catch (LineFault f) {
                    bulkOutcome.set(f);
                }
            });
            Thread miss = Thread.ofPlatform().start(() -> {
                try {
                    loadOutcome.set(c.load(2 * LINE + 5, 1));
                } catch (LineFault f) {
                    loadOutcome.set(f);
                }
            });
            reader.join(10_000);
            miss.join(10_000);
            assertTrue(!reader.isAlive() && !miss.isAlive(), "stuck");
            assertTrue(bulkOutcome.get() instanceof LineFault || Byte.valueOf((byte) 25).equals(bulkOutcome.get()),
                "bulk read: " + bulkOutcome.get());
            assertTrue(loadOutcome.get() instanceof LineFault || Long.valueOf(25).equals(loadOutcome.get()),
                "load: " + loadOutcome.get());
            assertEquals(25, c.load(2 * LINE + 5, 1), "the home answers again");
        }
    }

    @Test
    void shouldLoseNoStoreToAWriteBackOrAFlushOfAnotherThread() throws Exception {
        // One thread stores a word at a time and flushes its own lines now and then (flush_fb);
        // another writes everything back meanwhile, as the background writer does. After each
        // flush the home holds every word the thread stored; at the end, every last value.
        for (int rep = 0; rep < RACE_REPS / 2; rep++) {
            FakeHome home = new FakeHome(4 * LINE);
            SegmentCache c = cache(home, 1, 1 << 20);
            java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
            List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
            Thread storer = Thread.ofPlatform().start(() -> {
                try {
                    long[] last = new long[4 * LINE / 8];
                    for (int v = 1; v <= 300; v++) {
                        int word = (v * 37) % last.length;
                        c.store(word * 8L, 8, v, true);
                        last[word] = v;
                        if (v % 10 == 0) {
                            assertEquals(0, SegmentCache.finish(c.startReleaseThread(Thread.currentThread())).status());
                            for (int w = 0; w < last.length; w++) {
                                assertEquals(last[w], homeLong(home, w * 8), "word " + w + " after the flush at " + v);
                            }
                        }
                    }
                } catch (Throwable t) {
                    failures.add(t);
                } finally {
                    done.set(true);
                }
            });
            while (!done.get()) {
                assertEquals(0, SegmentCache.finish(c.startReleaseAll()).status());
                Thread.yield();
            }
            storer.join(10_000);
            assertEquals(List.of(), failures);
            assertEquals(0, c.dirtyLines());
        }
    }

    private static long homeLong(FakeHome home, long off) {
        synchronized (home) {
            return MemorySegment.ofArray(home.memory).get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, off);
        }
    }

    private static int fills(FakeHome home) {
        synchronized (home) {
            return home.fills;
        }
    }
}
