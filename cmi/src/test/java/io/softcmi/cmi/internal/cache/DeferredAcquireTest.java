package io.softcmi.cmi.internal.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * {@code rmb}'s deferred acquire ({@link CacheAcquire}, docs/cache.md "Acquire points"): the
 * {@code ACQUIRE} is queued, not written, and {@code rmb} returns; the cache's next access sends
 * it and waits for the reply before it reads anything cached. A miss sends its {@code FILL} in
 * the same write, behind the {@code ACQUIRE}, and keeps what it filled; a hit writes the
 * {@code ACQUIRE} alone.
 */
class DeferredAcquireTest {
    private static final int LINE = 512;

    private static SegmentCache cache(FakeHome home) {
        return new SegmentCache(home.memory.length, LINE, 1 << 20, home.transport(1), new CacheStats(),
            offsets -> { throw new AssertionError("lost stores"); });
    }

    /** Runs {@code load} of {@code off} in a new thread; its value lands in {@code out}. */
    private static Thread loadInThread(SegmentCache c, long off, AtomicLong out) {
        Thread t = new Thread(() -> out.set(c.load(off, 1)));
        t.start();
        return t;
    }

    /** A cache holding line 0 with byte 10 = 1, which the home then sets to 2. */
    private static SegmentCache cachedThenWrittenAtHome(FakeHome home) {
        home.memory[10] = 1;
        SegmentCache c = cache(home);
        assertEquals(1, c.load(10, 1));
        home.localWrite(10, (byte) 2);
        return c;
    }

    @Test
    void shouldReturnFromTheAcquireAtOnceAndMakeTheNextLoadWaitForItsReply() throws Exception {
        FakeHome home = new FakeHome(4 * LINE);
        SegmentCache c = cachedThenWrittenAtHome(home);
        CountDownLatch reply = new CountDownLatch(1);
        home.acquireAckGate = reply;
        c.deferAcquire(); // returns with nothing written
        assertEquals(0, home.acquires);
        assertTrue(c.acquirePending);
        AtomicLong seen = new AtomicLong(-1);
        Thread t = loadInThread(c, 10, seen);
        t.join(300);
        assertTrue(t.isAlive(), "a load that hits must wait for the pending acquire's reply");
        reply.countDown();
        t.join(10_000);
        assertFalse(t.isAlive());
        assertEquals(2, seen.get(), "the acquire dropped the stale line before the load read it");
        assertFalse(c.acquirePending);
    }

    @Test
    void shouldWriteNothingAtTheAcquireAndTheAcquireAndTheMissInOneWrite() {
        FakeHome home = new FakeHome(4 * LINE);
        SegmentCache c = cache(home);
        assertEquals(0, c.load(0, 1)); // something cached: the acquire is due
        home.localWrite(LINE + 3, (byte) 9);
        int before = home.writes().size();
        c.deferAcquire();
        assertEquals(before, home.writes().size(), "rmb writes nothing");
        assertEquals(0, home.acquires);
        assertEquals(9, c.load(LINE + 3, 1));
        List<String> after = home.writes().subList(before, home.writes().size());
        assertEquals(List.of("ACQUIRE FILL"), after, "the miss carries the queued ACQUIRE in its own write, in front of its FILL");
        assertEquals(1, home.acquires);
        assertFalse(c.acquirePending);
        assertEquals(9, c.load(LINE + 3, 1));
        assertEquals(0, c.load(0, 1), "line 0 was not written: it stays cached");
        assertEquals(List.of("ACQUIRE FILL"), home.writes().subList(before, home.writes().size()), "hits after it write nothing");
    }

    @Test
    void shouldWriteTheAcquireAloneAtAHitOfAnotherThreadAndDropTheLineItNames() throws Exception {
        FakeHome home = new FakeHome(4 * LINE);
        SegmentCache c = cachedThenWrittenAtHome(home); // before rmb: the acquire must report the write
        int before = home.writes().size();
        c.deferAcquire(); // this thread's rmb
        assertEquals(before, home.writes().size(), "rmb writes nothing");
        home.localWrite(12, (byte) 7); // after rmb, before the access: the acquire is answered later, so it reports it too
        AtomicLong seen = new AtomicLong(-1);
        Thread t = loadInThread(c, 10, seen); // another thread's access (a hit in the table) settles it
        t.join(10_000);
        assertFalse(t.isAlive());
        assertEquals(2, seen.get(), "the acquire dropped the line before the hit returned a value");
        assertEquals(List.of("ACQUIRE", "FILL"), home.writes().subList(before, home.writes().size()),
            "the hit wrote the ACQUIRE alone and waited; the dropped line was filled again");
        assertEquals(7, c.load(12, 1));
        assertFalse(c.acquirePending);
    }

    @Test
    void shouldSendAMissBehindThePendingAcquireAndKeepItsLine() throws Exception {
        FakeHome home = new FakeHome(4 * LINE);
        SegmentCache c = cache(home);
        assertEquals(0, c.load(0, 1)); // something cached: the acquire is sent
        home.localWrite(LINE + 3, (byte) 9); // in a line not cached, which the acquire will name
        CountDownLatch reply = new CountDownLatch(1);
        home.acquireAckGate = reply;
        c.deferAcquire();
        AtomicLong seen = new AtomicLong(-1);
        Thread t = loadInThread(c, LINE + 3, seen);
        for (int i = 0; i < 1000 && home.fills < 2; i++) {
            Thread.sleep(5);
        }
        assertEquals(2, home.fills, "the miss's FILL goes out before the acquire's reply is awaited");
        reply.countDown();
        t.join(10_000);
        assertFalse(t.isAlive());
        assertEquals(9, seen.get());
        assertEquals(9, c.load(LINE + 3, 1));
        assertEquals(2, home.fills, "a fill sent behind the acquire is not made stale by it: no second fill");
        assertTrue(c.residentLines() >= 2, "line 0 and line 1 (with its read-ahead) stay cached");
    }

    @Test
    void shouldWriteTheNextAcquireAtOnceAfterOneSettledByAHitAndQueueItAgainAfterOneSettledByAMiss() {
        FakeHome home = new FakeHome(4 * LINE);
        SegmentCache c = cachedThenWrittenAtHome(home);
        int before = home.writes().size();
        c.deferAcquire(); // the first is queued
        assertEquals(before, home.writes().size());
        assertEquals(0, c.load(3 * LINE, 1)); // a miss settles it: the next is queued too
        c.deferAcquire();
        assertEquals(before + 1, home.writes().size(), "queued after a miss settled the last one");
        assertEquals(0, c.load(3 * LINE, 1)); // a hit settles it (written alone)
        assertEquals(List.of("ACQUIRE FILL", "ACQUIRE"), home.writes().subList(before, home.writes().size()));
        c.deferAcquire();
        assertEquals(List.of("ACQUIRE FILL", "ACQUIRE", "ACQUIRE"), home.writes().subList(before, home.writes().size()),
            "after a hit settled the last one, rmb writes its ACQUIRE at once (its round trip overlaps what follows)");
        assertEquals(0, c.load(3 * LINE, 1)); // a hit: the reply is only awaited
        assertEquals(2, c.load(10, 1)); // line 0 was dropped by the first acquire: a miss
        c.deferAcquire(); // the last one was settled by a hit: written at once
        home.localWrite(2 * LINE, (byte) 4);
        assertEquals(4, c.load(2 * LINE, 1)); // settled by a miss (its FILL written alone)
        int settledByMiss = home.writes().size();
        c.deferAcquire();
        assertEquals(settledByMiss, home.writes().size(), "after a miss settled the last one, rmb queues again");
        assertEquals(List.of("ACQUIRE FILL", "ACQUIRE", "ACQUIRE", "FILL", "ACQUIRE", "FILL"),
            home.writes().subList(before, home.writes().size()));
    }

    @Test
    void shouldNotServeAHintWhileAnAcquireIsPending() {
        FakeHome home = new FakeHome(4 * LINE);
        home.memory[10] = 1;
        SegmentCache c = cache(home);
        LineHint h = new LineHint(Thread.currentThread());
        assertEquals(1, c.load(10, 1));
        c.aim(h, 10);
        assertTrue(h.covers(10, 1));
        home.localWrite(10, (byte) 2);
        home.acquireAckGate = new CountDownLatch(0); // the reply is there; only nobody applied it yet
        c.deferAcquire();
        assertFalse(h.covers(10, 1), "a hint must not serve a line a pending acquire may drop");
        assertEquals(2, c.load(10, 1));
        c.aim(h, 10);
        assertTrue(h.covers(10, 1));
        assertEquals(2, h.get(10, 1));
    }

    @Test
    void shouldSettleTheFirstDeferredAcquireBeforeSendingTheNext() {
        FakeHome home = new FakeHome(4 * LINE);
        SegmentCache c = cache(home);
        assertEquals(0, c.load(0, 1));
        assertEquals(0, c.load(3 * LINE, 1)); // a second line, not written: the cache stays non-empty
        home.localWrite(0, (byte) 3);
        int before = home.writes().size();
        c.deferAcquire();
        c.deferAcquire(); // settles the first (writes it, which drops line 0), then writes the second (no miss settled the first)
        assertEquals(2, home.acquires);
        assertEquals(3, c.load(0, 1));
        assertEquals(3, home.fills, "line 0 was dropped and filled again once");
        assertEquals(List.of("ACQUIRE", "ACQUIRE", "FILL"), home.writes().subList(before, home.writes().size()));
    }

    @Test
    void shouldSendABulkReadsFillsBehindThePendingAcquireInOneWriteForLinesOthersWroteBefore() {
        FakeHome home = new FakeHome(4 * LINE);
        SegmentCache c = cache(home);
        byte[] row = new byte[2 * LINE];
        c.read(LINE, MemorySegment.ofArray(row)); // lines 1 and 2 cached, all zero
        home.localWrite(LINE + 5, (byte) 6); // another process writes into line 1, then releases
        int before = home.writes().size();
        c.deferAcquire(); // this process's rmb, queued
        c.read(LINE, MemorySegment.ofArray(row));
        assertEquals(6, row[5], "the bulk read after rmb sees the write");
        assertEquals(List.of("ACQUIRE", "FILL"), home.writes().subList(before, home.writes().size()),
            "no acquire had named line 1 yet: settled first, then the line the reply named fetched");
        home.localWrite(LINE + 5, (byte) 7); // the next round of the same sharing
        before = home.writes().size();
        c.deferAcquire();
        c.read(LINE, MemorySegment.ofArray(row));
        assertEquals(7, row[5]);
        assertEquals(List.of("ACQUIRE FILL"), home.writes().subList(before, home.writes().size()),
            "line 1, named before, was dropped and fetched behind the queued ACQUIRE, in its write");
        assertFalse(c.acquirePending);
        c.read(LINE, MemorySegment.ofArray(row));
        assertEquals(List.of("ACQUIRE FILL"), home.writes().subList(before, home.writes().size()),
            "the line fetched behind the acquire is newer than it: it did not drop it");
        c.deferAcquire();
        assertEquals(before + 1, home.writes().size(), "settled by the fetch: the next rmb queues again");
    }

    @Test
    void shouldNotFetchAgainLinesNoAcquireNamedWhenABulkReadSettlesThePendingAcquire() {
        FakeHome home = new FakeHome(4 * LINE);
        SegmentCache c = cache(home);
        home.memory[LINE + 9] = 3;
        byte[] row = new byte[2 * LINE];
        c.read(LINE, MemorySegment.ofArray(row));
        long fills = home.fills;
        for (int round = 0; round < 3; round++) {
            c.deferAcquire(); // nobody else writes: the reply names nothing
            c.read(LINE, MemorySegment.ofArray(row));
            assertEquals(3, row[9]);
        }
        assertEquals(fills, home.fills, "read-only lines stay cached across acquires: no fetch");
    }

    @Test
    void shouldStopFetchingEarlyALineOnceAnAcquireNoLongerNamesIt() {
        FakeHome home = new FakeHome(4 * LINE);
        SegmentCache c = cache(home);
        byte[] row = new byte[2 * LINE];
        c.read(LINE, MemorySegment.ofArray(row));
        for (byte v = 1; v <= 2; v++) { // two rounds of sharing: another process writes line 1
            home.localWrite(LINE + 5, v);
            c.deferAcquire();
            c.read(LINE, MemorySegment.ofArray(row));
            assertEquals(v, row[5]);
        }
        // The writer stopped. The next read still fetches line 1 behind the ACQUIRE (the last
        // reply named it), and that reply names nothing.
        int before = home.writes().size();
        c.deferAcquire();
        c.read(LINE, MemorySegment.ofArray(row));
        assertEquals(List.of("ACQUIRE FILL"), home.writes().subList(before, home.writes().size()));
        long fills = home.fills;
        before = home.writes().size();
        for (int round = 0; round < 3; round++) {
            c.deferAcquire();
            c.read(LINE, MemorySegment.ofArray(row));
            assertEquals(2, row[5]);
        }
        assertEquals(fills, home.fills, "once a reply left line 1 out, it stays cached across acquires");
        assertEquals(List.of("ACQUIRE", "ACQUIRE", "ACQUIRE"), home.writes().subList(before, home.writes().size()));
    }

    @Test
    void shouldKeepALineStoredToWhenABulkReadSettlesThePendingAcquire() {
        FakeHome home = new FakeHome(4 * LINE);
        SegmentCache c = cache(home);
        byte[] row = new byte[2 * LINE];
        c.read(0, MemorySegment.ofArray(row));
        c.store(3, 1, 8, false); // line 0 dirty: this process's store, not yet written back
        home.localWrite(LINE + 1, (byte) 5);
        c.deferAcquire();
        c.read(0, MemorySegment.ofArray(row));
        assertEquals(8, row[3], "this process's own store survives the bulk read's early drop");
        assertEquals(5, row[LINE + 1], "the line another process wrote is read again");
        assertFalse(c.acquirePending);
    }
}
