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
        if (h.covers(off, 1)) {
            return h.get(off, 1);
        }
        long v = c.load(off, 1);
        c.aim(h, off);
        return v;
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
    void shouldNeverReadOlderThroughTheHintWhileAnotherThreadAcquires() throws Exception {
        FakeHome home = new FakeHome(4 * LINE);
        SegmentCache c = cache(home, 1, 2 * LINE);
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        // Another thread of the context: the home's value of byte 3 rises, and each acquire
        // drops the line; now and then it fills other lines, which evicts line 0 as well.
        Thread other = Thread.ofPlatform().start(() -> {
            try {
                for (int v = 1; v <= 100; v++) {
                    home.localWrite(3, (byte) v);
                    c.finishAcquire(c.startAcquire());
                    c.load(LINE * (1 + v % 3), 1);
                    Thread.yield();
                }
            } finally {
                done.set(true);
            }
        });
        LineHint h = new LineHint(Thread.currentThread());
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
        long last = 0;
        long reads = 0;
        while (!done.get() && System.nanoTime() < deadline) {
            long v = load(c, h, 3);
            assertTrue(v >= last, "read " + v + " after " + last);
            last = v;
            reads++;
        }
        other.join(20_000);
        assertFalse(other.isAlive());
        c.finishAcquire(c.startAcquire()); // this thread's own acquire: the last value from here on
        assertEquals(100, load(c, h, 3), "after " + reads + " reads");
    }
}
