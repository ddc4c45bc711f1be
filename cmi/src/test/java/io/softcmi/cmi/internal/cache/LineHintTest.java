package io.softcmi.cmi.internal.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * A thread's line hint never serves a line that left the cache: after an acquire's
 * invalidation, an eviction, a new token or a detach, a load through the hint reads what a
 * load through the table would (each test fails when {@link LineHint#covers} stops checking
 * that its line is still cached).
 */
class LineHintTest {
    private static final int LINE = 512;

    /** A cache of {@code home}'s segment in 512-byte lines; no write-back fails in these tests. */
    private static SegmentCache cache(FakeHome home, long id, long capacityBytes) {
        return new SegmentCache(home.memory.length, LINE, capacityBytes, home.transport(id), new CacheStats(),
            offsets -> { throw new AssertionError("lost stores"); });
    }

    /** A load as {@code RemoteMapping} makes it: through the hint when it covers the offset, else through the table. */
    private static long load(SegmentCache c, LineHint h, long off) {
        return load(c, h, off, 1);
    }

    private static long load(SegmentCache c, LineHint h, long off, int width) {
        if (h.covers(off, width)) {
            return h.get(off, width);
        }
        long v = c.load(off, width);
        c.aim(h, off);
        return v;
    }

    /**
     * Runs {@code rounds} steps of another thread of the context (step {@code v} from 1) while
     * this thread calls {@code read} over and over, until that thread is done (20 s at most).
     *
     * @return how many times {@code read} ran
     */
    private static long readWhile(int rounds, java.util.function.IntConsumer otherStep, Runnable read)
            throws InterruptedException {
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        Thread other = Thread.ofPlatform().start(() -> {
            try {
                for (int v = 1; v <= rounds; v++) {
                    otherStep.accept(v);
                    Thread.yield();
                }
            } finally {
                done.set(true);
            }
        });
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
        long reads = 0;
        while (!done.get() && System.nanoTime() < deadline) {
            read.run();
            reads++;
        }
        other.join(20_000);
        assertFalse(other.isAlive());
        return reads;
    }

    @Test
    void shouldHitTheHintedLineAndMissOutsideIt() {
        FakeHome home = new FakeHome(4 * LINE);
        home.memory[LINE + 5] = 7;
        SegmentCache c = cache(home, 1, 1 << 20);
        LineHint h = new LineHint(Thread.currentThread());
        assertFalse(h.covers(0, 1), "a new hint points nowhere");
        assertEquals(7, load(c, h, LINE + 5));
        assertTrue(h.covers(LINE + 5, 1));
        assertTrue(h.covers(2 * LINE - 8, 8));
        assertFalse(h.covers(2 * LINE - 7, 8), "crosses into the next line");
        assertFalse(h.covers(LINE - 1, 1));
        assertFalse(h.covers(2 * LINE, 1));
        h.clear();
        assertFalse(h.covers(LINE + 5, 1));
    }

    @Test
    void shouldNotServeALineAnAcquireInvalidated() {
        FakeHome home = new FakeHome(4 * LINE);
        home.memory[10] = 1;
        SegmentCache c = cache(home, 1, 1 << 20);
        LineHint h = new LineHint(Thread.currentThread());
        assertEquals(1, load(c, h, 10));
        assertEquals(1, load(c, h, 10));
        home.localWrite(10, (byte) 2); // someone else writes; the acquire drops the line
        c.finishAcquire(c.startAcquire());
        assertFalse(h.covers(10, 1));
        assertEquals(2, load(c, h, 10), "a stale hit after the acquire");
    }

    @Test
    void shouldNotServeAnEvictedLine() {
        FakeHome home = new FakeHome(4 * LINE);
        SegmentCache c = cache(home, 1, LINE); // one line only
        LineHint h = new LineHint(Thread.currentThread());
        assertEquals(0, load(c, h, 3));
        assertEquals(0, c.load(2 * LINE, 1)); // evicts line 0
        home.localWrite(3, (byte) 4);
        assertEquals(4, load(c, h, 3), "a hit on the evicted line");
    }

    @Test
    void shouldNotServeAfterANewTokenOrADetach() {
        FakeHome home = new FakeHome(4 * LINE);
        SegmentCache c = cache(home, 1, 1 << 20);
        LineHint h = new LineHint(Thread.currentThread());
        assertEquals(0, load(c, h, 3));
        c.tokenChanged();
        assertFalse(h.covers(3, 1), "a new token drops every line");
        assertEquals(0, load(c, h, 3));
        c.close();
        assertFalse(h.covers(3, 1), "a detach drops every line");
    }

    @Test
    void shouldNotAimAHintAfterADetachThatCameWhileAMissTravelled() throws Exception {
        // A load passed the mapping's checks and missed; the segment is detached before the
        // reply comes. The hint aimed after that load must not serve the next loads (they would
        // skip the mapping's detached check).
        FakeHome home = new FakeHome(4 * LINE);
        SegmentCache c = cache(home, 1, 1 << 20);
        java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(1);
        home.fillAckGate = gate;
        LineHint h = new LineHint(null);
        Thread reader = Thread.ofPlatform().start(() -> {
            c.load(3, 1);
            c.aim(h, 3);
        });
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        while (fills(home) < 1 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        home.fillAckGate = null;
        c.close();
        gate.countDown();
        reader.join(10_000);
        assertFalse(h.covers(3, 1), "a hint aimed after the detach");
    }

    private static int fills(FakeHome home) {
        synchronized (home) {
            return home.fills;
        }
    }

    @Test
    void shouldNeverReadOlderThroughTheHintWhileAnotherThreadAcquires() throws Exception {
        FakeHome home = new FakeHome(4 * LINE);
        SegmentCache c = cache(home, 1, 2 * LINE);
        LineHint h = new LineHint(Thread.currentThread());
        long[] last = new long[1];
        // Another thread of the context: the home's value of byte 3 rises, and each acquire
        // drops the line; now and then it fills other lines, which evicts line 0 as well.
        long reads = readWhile(100, v -> {
            home.localWrite(3, (byte) v);
            c.finishAcquire(c.startAcquire());
            c.load(LINE * (1 + v % 3), 1);
        }, () -> {
            long v = load(c, h, 3);
            assertTrue(v >= last[0], "read " + v + " after " + last[0]);
            last[0] = v;
        });
        c.finishAcquire(c.startAcquire()); // this thread's own acquire: the last value from here on
        assertEquals(100, load(c, h, 3), "after " + reads + " reads");
    }

    @Test
    void shouldNeverReadAnotherLinesBytesNorGoBackWhileAnotherThreadEvictsAndInvalidates() throws Exception {
        FakeHome home = new FakeHome(4 * LINE);
        // Every word's low byte names its line (1 to 4), its second byte is a version, the rest stay 0.
        for (int w = 0; w < 4 * LINE; w += 8) {
            home.memory[w] = (byte) (w / LINE + 1);
        }
        SegmentCache c = cache(home, 1, 2 * LINE); // two lines: the other thread's loads evict
        LineHint h = new LineHint(Thread.currentThread());
        long[] offsets = {0, LINE + 8};
        long[] last = new long[2];
        // Another thread of the context: a word of line 0 and one of line 1 get new versions at
        // the home; it acquires (drops them), fills lines 2 and 3 (evicts), and defers acquires.
        long reads = readWhile(200, v -> {
            home.localWrite(1, (byte) v);
            home.localWrite(LINE + 9, (byte) v);
            if (v % 3 == 0) {
                c.deferAcquire(); // the reader's next load through the table settles it
            } else {
                c.finishAcquire(c.startAcquire());
            }
            c.load(LINE * (2 + v % 2), 8);
        }, () -> {
            for (int k = 0; k < 8; k++) {
                int i = k / 4; // four reads of each word in a row: the second to fourth may hit the hint
                long v = load(c, h, offsets[i], 8);
                assertEquals(i + 1, v & 0xFF, "read " + Long.toHexString(v) + " at " + offsets[i] + ": another line's bytes");
                assertEquals(0, v >>> 16, "read " + Long.toHexString(v) + " at " + offsets[i] + ": bytes nobody wrote");
                long version = v >>> 8;
                assertTrue(version >= last[i], "read version " + version + " after " + last[i] + " at " + offsets[i]);
                last[i] = version;
            }
        });
        for (int i = 0; i < 2; i++) {
            load(c, h, offsets[i], 8); // the hint on this word's line
            home.localWrite(offsets[i] + 1, (byte) 201); // written elsewhere once more
            c.finishAcquire(c.startAcquire()); // this thread's own acquire: the last version from here on
            assertEquals(i + 1 | 201 << 8, load(c, h, offsets[i], 8), "after " + reads + " rounds of reads");
        }
    }

    @Test
    void shouldEndEveryReplacedEpochWhenThreadsEndEpochsAtOnce() throws Exception {
        SegmentCache c = cache(new FakeHome(4 * LINE), 1, 1 << 20);
        java.util.Set<HintEpoch> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
        java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
        // Drops (under the cache's lock) and deferred acquires (under the settle lock) end epochs
        // from different threads at once: each replaced epoch must end, or a hint aimed in it
        // would serve forever.
        Thread[] threads = new Thread[4];
        for (int t = 0; t < threads.length; t++) {
            threads[t] = Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int r = 0; r < 20_000; r++) {
                    seen.add(c.hintEpoch);
                    c.endHintEpoch();
                }
            });
        }
        start.countDown();
        for (Thread t : threads) {
            t.join(20_000);
            assertFalse(t.isAlive());
        }
        HintEpoch now = c.hintEpoch;
        assertTrue(now.current);
        long stillCurrent = seen.stream().filter(e -> e != now && e.current).count();
        assertEquals(0, stillCurrent, "replaced epochs still current, of " + seen.size());
    }
}
