package io.softcmi.cmi.internal.cache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The line cache against a fake home, one thread at a time: misses, diffs, eviction, epochs,
 * acquires, failures. Several threads at once: {@link SegmentCacheConcurrencyTest}.
 */
class SegmentCacheTest {
    private static final int LINE = 512;
    private final CacheStats stats = new CacheStats();
    private final List<long[]> lost = new ArrayList<>();

    private SegmentCache cache(FakeHome home, long id, long capacityBytes) {
        return new SegmentCache(home.memory.length, LINE, capacityBytes, home.transport(id), stats, lost::add);
    }

    @Test
    void shouldFetchALineOnceAndHitAfterwards() {
        FakeHome home = new FakeHome(8 * LINE);
        home.memory[100] = 42;
        SegmentCache c = cache(home, 1, 1 << 20);
        assertEquals(42, c.load(100, 1));
        assertEquals(42, c.load(100, 1));
        assertEquals(0, c.load(200, 8));
        assertEquals(1, home.fills);
        assertEquals(1, c.residentLines());
    }

    @Test
    void shouldFillEveryAbsentLineOfABulkReadInOneRequestPerRun() {
        FakeHome home = new FakeHome(64 * LINE);
        for (int i = 0; i < home.memory.length; i++) {
            home.memory[i] = (byte) (i * 7);
        }
        SegmentCache c = cache(home, 1, 1 << 20);
        assertEquals((byte) (20 * LINE * 7), (byte) c.load(20 * LINE, 1));
        assertEquals(1, home.fills);
        byte[] got = new byte[16 * LINE];
        c.read(12 * LINE + 3, MemorySegment.ofArray(got));
        for (int i = 0; i < got.length; i++) {
            assertEquals((byte) ((12 * LINE + 3 + i) * 7), got[i], "byte " + i);
        }
        assertEquals(3, home.fills, "lines 12-19 and 21-28 in one request each, line 20 was cached");
        c.read(12 * LINE, MemorySegment.ofArray(got));
        assertEquals(3, home.fills, "all hits");
    }

    @Test
    void shouldKeepAWordWholeWhenTwoCachesStoreItWithoutSynchronising() {
        FakeHome home = new FakeHome(4 * LINE);
        SegmentCache a = cache(home, 1, 1 << 20);
        SegmentCache b = cache(home, 2, 1 << 20);
        assertEquals(0, a.load(0, 8));
        assertEquals(0, b.load(0, 8));
        // Each value differs from the filled zero in one byte only: byte diffs against a twin
        // would leave 0xff000000000000ff at the home, a value nobody stored.
        a.store(0, 8, 0x00000000000000ffL, false);
        b.store(0, 8, 0xff00000000000000L, false);
        assertEquals(0, SegmentCache.finish(a.startReleaseAll()).status());
        assertEquals(0, SegmentCache.finish(b.startReleaseAll()).status());
        long word = java.nio.ByteBuffer.wrap(home.memory, 0, 8).order(java.nio.ByteOrder.nativeOrder()).getLong();
        assertEquals(0xff00000000000000L, word, "the later write-back's whole word");
    }

    @Test
    void shouldSendAStoreOfTheValueTheLineAlreadyHeld() {
        FakeHome home = new FakeHome(4 * LINE);
        SegmentCache c = cache(home, 1, 1 << 20);
        assertEquals(0, c.load(16, 8));
        c.store(16, 8, 0, false);
        assertEquals(0, SegmentCache.finish(c.startReleaseAll()).status());
        assertEquals(1, home.diffs, "a store is a store even when it changes nothing in this cache");
    }

    @Test
    void shouldStreamALargeBulkReadThroughABoundedWindowOfFills() {
        FakeHome home = new FakeHome(4096 * LINE);
        for (int i = 0; i < home.memory.length; i += 8) {
            home.memory[i] = (byte) (i >>> 3);
        }
        LineTransport inner = home.transport(1);
        int[] outstanding = {0, 0};
        LineTransport counting = new LineTransport() {
            @Override
            public Pending fill(long offset, byte[] dst, int dstOffset, int length) {
                Pending p = inner.fill(offset, dst, dstOffset, length);
                outstanding[1] = Math.max(outstanding[1], ++outstanding[0]);
                return new Pending() {
                    boolean awaited;
                    @Override public int await() {
                        if (!awaited) {
                            awaited = true;
                            outstanding[0]--;
                        }
                        return p.await();
                    }
                    @Override public long value() { return p.value(); }
                    @Override public int received() { return p.received(); }
                    @Override public boolean done() { return p.done(); }
                };
            }
            @Override public Pending diff(MemorySegment runs) { return inner.diff(runs); }
            @Override public Pending acquire(long sinceEpoch, byte[] dst) { return inner.acquire(sinceEpoch, dst); }
        };
        SegmentCache c = new SegmentCache(home.memory.length, LINE, 1L << 30, counting, stats, lost::add);
        byte[] all = new byte[home.memory.length];
        c.read(0, MemorySegment.ofArray(all));
        assertArrayEquals(home.memory, all);
        assertEquals(4096 / SegmentCache.MAX_READ_AHEAD, home.fills, "one fill per run of read-ahead lines");
        assertTrue(outstanding[1] <= 8, "at most 8 fills in flight, saw " + outstanding[1]);
        assertTrue(outstanding[1] > 1, "fills overlap");
    }

    @Test
    void shouldReadAheadOnSequentialMisses() {
        FakeHome home = new FakeHome(64 * LINE);
        SegmentCache c = cache(home, 1, 1 << 20);
        for (long off = 0; off < 64 * LINE; off += 8) {
            c.load(off, 8);
        }
        assertTrue(home.fills < 12, "sequential misses should be batched, took " + home.fills + " fills");
        assertEquals(64, c.residentLines());
    }

    @Test
    void shouldWriteBackOnlyTheChangedBytesAtARelease() {
        FakeHome home = new FakeHome(4 * LINE);
        SegmentCache c = cache(home, 1, 1 << 20);
        c.store(10, 8, 0x0102030405060708L, false);
        assertEquals(0, home.memory[10], "a store stays in the cache until a release");
        assertEquals(1, c.dirtyLines());
        assertEquals(0, SegmentCache.finish(c.startReleaseAll()).status());
        assertEquals(0x08, home.memory[10]);
        assertEquals(0x01, home.memory[17]);
        assertEquals(0, c.dirtyLines());
        assertEquals(12 + 8, stats.diffBytes.sum(), "one run: its header and the 8 changed bytes");
    }

    @Test
    void shouldKeepEveryByteWhenTwoCachesWriteAlternateBytesOfOneLine() {
        FakeHome home = new FakeHome(LINE);
        SegmentCache a = cache(home, 1, 1 << 20);
        SegmentCache b = cache(home, 2, 1 << 20);
        a.load(0, 1);
        b.load(0, 1);
        for (int round = 1; round <= 20; round++) {
            for (int i = 0; i < LINE; i += 2) {
                a.store(i, 1, round, false);
                b.store(i + 1, 1, -round, false);
            }
            assertEquals(0, SegmentCache.finish(a.startReleaseAll()).status());
            assertEquals(0, SegmentCache.finish(b.startReleaseAll()).status());
            for (int i = 0; i < LINE; i += 2) {
                assertEquals(round, home.memory[i]);
                assertEquals(-round, home.memory[i + 1]);
            }
        }
    }

    @Test
    void shouldWriteBackOnEvictionAndNeverGrowPastItsCapacity() {
        FakeHome home = new FakeHome(64 * LINE);
        SegmentCache c = cache(home, 1, 3 * LINE);
        for (int round = 0; round < 5; round++) {
            for (int line = 0; line < 64; line++) {
                c.store((long) line * LINE + 8, 8, round * 1000L + line, false);
                assertTrue(c.residentLines() <= 3);
            }
            for (int line = 0; line < 64; line++) {
                assertEquals(round * 1000L + line, c.load((long) line * LINE + 8, 8));
            }
        }
        assertEquals(0, SegmentCache.finish(c.startReleaseAll()).status());
        for (int line = 0; line < 64; line++) {
            assertEquals(4000L + line, MemorySegment.ofArray(home.memory).get(
                java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, (long) line * LINE + 8));
        }
        assertTrue(stats.evictions.sum() > 0);
    }

    @Test
    void shouldInvalidateOnlyLinesOthersWroteAtAnAcquire() {
        FakeHome home = new FakeHome(8 * LINE);
        SegmentCache a = cache(home, 1, 1 << 20);
        SegmentCache b = cache(home, 2, 1 << 20);
        a.load(0, 8);
        a.load(4 * LINE, 8);
        a.store(6 * LINE, 8, 7, false);
        assertEquals(0, SegmentCache.finish(a.startReleaseAll()).status());
        b.store(4 * LINE, 8, 99, false);
        assertEquals(0, SegmentCache.finish(b.startReleaseAll()).status());
        int fillsBefore = home.fills;
        assertEquals(0, a.load(4 * LINE, 8), "no acquire yet: the cached copy");
        a.finishAcquire(a.startAcquire());
        assertEquals(99, a.load(4 * LINE, 8));
        assertEquals(0, a.load(0, 8));
        assertEquals(7, a.load(6 * LINE, 8), "its own write-back does not invalidate it");
        assertEquals(fillsBefore + 1, home.fills, "only the line another cache wrote is fetched again");
    }

    @Test
    void shouldInvalidateLinesAHomeLocalWriterChanged() {
        FakeHome home = new FakeHome(2 * LINE);
        SegmentCache a = cache(home, 1, 1 << 20);
        assertEquals(0, a.load(3, 1));
        home.localWrite(3, (byte) 5);
        a.finishAcquire(a.startAcquire());
        assertEquals(5, a.load(3, 1));
    }

    @Test
    void shouldKeepItsOwnStoresInALineOthersWroteWhenInvalidated() {
        FakeHome home = new FakeHome(LINE);
        SegmentCache a = cache(home, 1, 1 << 20);
        SegmentCache b = cache(home, 2, 1 << 20);
        a.store(0, 1, 1, false);
        b.store(1, 1, 2, false);
        assertEquals(0, SegmentCache.finish(b.startReleaseAll()).status());
        a.finishAcquire(a.startAcquire());
        assertEquals(1, a.load(0, 1));
        assertEquals(2, a.load(1, 1));
        assertEquals(1, home.memory[0], "a dirty line is written back before it is dropped");
    }

    @Test
    void shouldFlushExactlyTheCallingThreadsLines() throws Exception {
        FakeHome home = new FakeHome(8 * LINE);
        SegmentCache c = cache(home, 1, 1 << 20);
        c.store(5 * LINE, 8, 55, false);
        Thread t = Thread.ofPlatform().start(() -> {
            c.store(0, 8, 11, true);
            assertEquals(0, SegmentCache.finish(c.startReleaseThread(Thread.currentThread())).status());
        });
        t.join(10_000);
        assertEquals(11, home.memory[0]);
        assertEquals(0, home.memory[5 * LINE], "another thread's line stays dirty");
        assertEquals(1, c.dirtyLines());
    }

    @Test
    void shouldReportAFailedWriteBack() {
        FakeHome home = new FakeHome(4 * LINE);
        SegmentCache c = cache(home, 1, 1 << 20);
        c.store(LINE + 1, 1, 9, false);
        home.failWith = 6;
        SegmentCache.Outcome o = SegmentCache.finish(c.startReleaseAll());
        assertEquals(6, o.status());
        assertArrayEquals(new long[] {LINE}, o.failedOffsets());
        assertThrows(LineFault.class, () -> c.load(3 * LINE, 1));
    }

    @Test
    void shouldRaiseLostStoresWhenAnEvictionCannotWriteBack() {
        FakeHome home = new FakeHome(4 * LINE);
        SegmentCache c = cache(home, 1, LINE);
        c.store(0, 1, 9, false);
        c.load(LINE, 1); // evicts line 0, whose write-back succeeds
        assertEquals(9, home.memory[0]);
        c.store(LINE, 1, 9, false);
        home.failDiffsWith = 6;
        assertEquals(0, c.load(2 * LINE, 1)); // evicts line 1, whose write-back fails
        assertEquals(1, lost.size());
        assertArrayEquals(new long[] {LINE}, lost.get(0));
    }

    @Test
    void shouldWriteWholeLinesWithoutAFill() {
        FakeHome home = new FakeHome(16 * LINE);
        SegmentCache c = cache(home, 1, 1 << 20);
        byte[] data = new byte[8 * LINE];
        java.util.Arrays.fill(data, (byte) 3);
        c.write(LINE, MemorySegment.ofArray(data), false);
        assertEquals(0, home.fills);
        assertEquals(0, SegmentCache.finish(c.startReleaseAll()).status());
        assertEquals(3, home.memory[LINE]);
        assertEquals(3, home.memory[9 * LINE - 1]);
        assertEquals(0, home.memory[9 * LINE]);
    }

    @Test
    void shouldReleaseOnlyTheLinesOfACflushRange() {
        FakeHome home = new FakeHome(8 * LINE);
        SegmentCache c = cache(home, 1, 1 << 20);
        c.store(0, 1, 1, false);
        c.store(3 * LINE, 1, 2, false);
        assertEquals(0, SegmentCache.finish(c.startReleaseRange(3 * LINE + 100, 1)).status());
        assertEquals(0, home.memory[0]);
        assertEquals(2, home.memory[3 * LINE]);
    }

    @Test
    void shouldLoadAndStoreValuesThatCrossALineBoundary() {
        FakeHome home = new FakeHome(4 * LINE);
        SegmentCache c = cache(home, 1, 1 << 20);
        c.store(LINE - 3, 8, 0x1122334455667788L, false);
        assertEquals(0x1122334455667788L, c.load(LINE - 3, 8));
        assertEquals(0, SegmentCache.finish(c.startReleaseAll()).status());
        SegmentCache other = cache(home, 2, 1 << 20);
        assertEquals(0x1122334455667788L, other.load(LINE - 3, 8));
    }

    @Test
    void shouldSendADenseWriteBackAsFewMergedRunsInGrowingFramesCutAtWordBoundaries() {
        FakeHome home = new FakeHome(4096 * LINE);
        LineTransport inner = home.transport(1);
        List<long[]> frames = new ArrayList<>(); // per frame: payload bytes, runs, then each run's offset and length
        LineTransport recording = new LineTransport() {
            @Override public Pending fill(long offset, byte[] dst, int dstOffset, int length) { return inner.fill(offset, dst, dstOffset, length); }
            @Override public Pending diff(MemorySegment runs) {
                java.nio.ByteBuffer b = runs.asByteBuffer().order(java.nio.ByteOrder.LITTLE_ENDIAN);
                List<Long> f = new ArrayList<>(List.of(runs.byteSize(), 0L));
                while (b.hasRemaining()) {
                    long off = b.getLong();
                    int len = b.getInt();
                    b.position(b.position() + len);
                    f.add(off);
                    f.add((long) len);
                    f.set(1, f.get(1) + 1);
                }
                frames.add(f.stream().mapToLong(Long::longValue).toArray());
                return inner.diff(runs);
            }
            @Override public Pending acquire(long sinceEpoch, byte[] dst) { return inner.acquire(sinceEpoch, dst); }
        };
        SegmentCache c = new SegmentCache(home.memory.length, LINE, 1L << 30, recording, stats, lost::add);
        long start = 3;
        long end = (long) home.memory.length - 5;
        for (long off = start; off < end; off++) {
            c.store(off, 1, (byte) (off * 13), false);
        }
        assertEquals(0, SegmentCache.finish(c.startReleaseAll()).status());
        for (long off = 0; off < home.memory.length; off++) {
            byte want = off >= start && off < end ? (byte) (off * 13) : 0;
            assertEquals(want, home.memory[(int) off], "byte " + off);
        }
        long runs = 0;
        long previousSize = 0;
        for (int i = 0; i < frames.size(); i++) {
            long[] f = frames.get(i);
            assertTrue(f[0] <= io.softcmi.wire.DataProtocol.MAX_DIFF_PAYLOAD, "frame " + i + " of " + f[0] + " bytes");
            assertTrue(i == frames.size() - 1 || f[0] >= previousSize, "frames grow: " + f[0] + " after " + previousSize);
            previousSize = f[0];
            runs += f[1];
            long lastOff = f[f.length - 2];
            long lastEnd = lastOff + f[f.length - 1];
            assertTrue(i == frames.size() - 1 || lastEnd % 8 == 0, "a run cut at a frame's end is cut at a word boundary: " + lastEnd);
        }
        assertEquals(frames.size(), runs, "one merged run per frame, not one per line");
        assertTrue(frames.size() < 4096 * LINE / (32 * 1024), "frames grow past 32 KiB: " + frames.size());
    }

    @Test
    void shouldWriteBackEverythingAndTellTheHomeToForgetItAtDetach() {
        FakeHome home = new FakeHome(4 * LINE);
        SegmentCache c = cache(home, 5, 1 << 20);
        c.store(LINE + 3, 1, 9, false);
        c.load(2 * LINE, 1);
        c.close();
        assertEquals(9, home.memory[LINE + 3]);
        assertEquals(0, c.residentLines());
        assertEquals(List.of(5L), home.forgets);
    }

    @Test
    void shouldNotTellTheHomeToForgetACacheWhoseWriteBackFailedAtDetach() {
        FakeHome home = new FakeHome(4 * LINE);
        SegmentCache c = cache(home, 5, 1 << 20);
        c.store(LINE + 3, 1, 9, false);
        home.failDiffsWith = 6;
        c.close();
        assertEquals(1, lost.size(), "the lost store is reported");
        assertArrayEquals(new long[] {LINE}, lost.get(0));
        assertTrue(home.forgets.isEmpty(), "the home keeps the record of a cache that may hold unwritten lines");
    }
}
