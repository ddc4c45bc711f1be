package io.softcmi.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * {@link CoherenceDirectory}: what an acquire answers around home-local writable attaches, also
 * when an attach races the I/O loop that makes the segment's directory.
 */
class CoherenceDirectoryTest {
    private static final long SIZE = 64 * 1024;
    private static final long CACHE = 0x1234_5678_9abcL;
    private static final byte[] NODE = {1, 2, 3, 4};

    /** @return the ranges an acquire of {@code CACHE} since {@code since} answers, as {start, end} pairs */
    private static List<long[]> acquire(CoherenceDirectory dir, long segmentId, long since) {
        ByteBuffer out = ByteBuffer.allocate(16 * 300).order(ByteOrder.LITTLE_ENDIAN);
        dir.changes(segmentId, SIZE, since, CACHE, out, 256);
        out.flip();
        List<long[]> ranges = new ArrayList<>();
        while (out.remaining() >= 16) {
            ranges.add(new long[] {out.getLong(), out.getLong()});
        }
        return ranges;
    }

    private static boolean wholeSegment(List<long[]> ranges) {
        return ranges.size() == 1 && ranges.get(0)[0] == 0 && ranges.get(0)[1] == SIZE;
    }

    @Test
    void shouldAnswerTheWholeSegmentWhileAHomeLocalProcessHoldsAWritableAttach() {
        CoherenceDirectory dir = new CoherenceDirectory();
        long epoch = dir.filled(7, CACHE, NODE, 1, false, 0, 1024);
        dir.localAttached(7, 100, true);
        assertTrue(wholeSegment(acquire(dir, 7, epoch)));
        dir.localAttached(7, 101, false); // read-only: no writer
        dir.localDetached(101);
        assertTrue(wholeSegment(acquire(dir, 7, epoch)));
    }

    /**
     * A writable home-local attach made before any remote cache filled a line of the segment
     * (no directory yet): the directory made by the first fill counts it. Segment ids count up
     * from 1 on a node; this one is past the small values that boxing shares (it once compared
     * two {@code Long}s with {@code ==}, so only segments 1 to 127 were counted).
     */
    @Test
    void shouldCountAWritableAttachMadeBeforeTheFirstFill() {
        CoherenceDirectory dir = new CoherenceDirectory();
        for (long segmentId : new long[] {5, 127, 128, 1000, 1L << 40}) {
            dir.localAttached(segmentId, segmentId + 1, true);
            long epoch = dir.filled(segmentId, CACHE, NODE, 1, false, 0, 1024);
            assertTrue(wholeSegment(acquire(dir, segmentId, epoch)), "segment " + segmentId);
            dir.localDetached(segmentId + 1);
        }
    }

    /**
     * A home-local process writes the mapping directly while it holds a writable attach, then
     * detaches (a release: say it then tells a remote reader through a CAS elsewhere). A remote
     * cache that filled a line before the detach must drop it at its next acquire, made after
     * the detach: the home never saw the local writes, so it must answer the whole segment.
     */
    @Test
    void shouldStillInvalidateWhatAHomeLocalWriterMayHaveWrittenAfterItDetached() {
        CoherenceDirectory dir = new CoherenceDirectory();
        long before = dir.filled(7, CACHE, NODE, 1, false, 0, 1024); // cached before the attach
        dir.localAttached(7, 100, true);
        long during = dir.filled(7, CACHE, NODE, 1, false, 1024, 1024); // cached while it writes
        // ... the local process writes both lines, then detaches
        dir.localDetached(100);
        assertTrue(wholeSegment(acquire(dir, 7, before)), "a line filled before the attach");
        assertTrue(wholeSegment(acquire(dir, 7, during)), "a line filled during the attach");
        // An acquire made after the detach has seen everything: the next one keeps its lines.
        ByteBuffer out = ByteBuffer.allocate(16 * 300).order(ByteOrder.LITTLE_ENDIAN);
        long after = dir.changes(7, SIZE, during, CACHE, out, 256);
        assertTrue(acquire(dir, 7, after).isEmpty(), "nothing written since the acquire after the detach");
    }

    /**
     * A writable home-local attach (the engine's thread) races the first fill of the segment (an
     * I/O loop, which makes the segment's directory): whichever comes first, an acquire after both
     * must answer the whole segment while the attach lasts, and after its detach an acquire since
     * an epoch from after the detach must answer nothing (the attach is not counted twice).
     * Bounded in count.
     */
    @Test
    void shouldCountAWritableAttachThatRacesTheCreationOfTheDirectory() throws InterruptedException {
        int rounds = Integer.getInteger("softcmi.test.rounds", 20_000);
        CoherenceDirectory dir = new CoherenceDirectory();
        AtomicLong go = new AtomicLong(-1);
        AtomicLong attached = new AtomicLong(-1);
        Thread attacher = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < rounds; i++) {
                await(go, i);
                spin(ThreadLocalRandom.current().nextInt(64));
                dir.localAttached(segment(i), 1 + i, true);
                attached.set(i);
            }
        });
        int missed = 0;
        int stuck = 0;
        try {
            for (int i = 0; i < rounds; i++) {
                long segmentId = segment(i);
                go.set(i);
                spin(ThreadLocalRandom.current().nextInt(64));
                long epoch = dir.filled(segmentId, CACHE, NODE, 1, false, 0, 1024);
                await(attached, i);
                if (!wholeSegment(acquire(dir, segmentId, epoch))) {
                    missed++;
                }
                dir.localDetached(1 + i);
                ByteBuffer out = ByteBuffer.allocate(16 * 300).order(ByteOrder.LITTLE_ENDIAN);
                long now = dir.changes(segmentId, SIZE, epoch, CACHE, out, 256);
                if (!acquire(dir, segmentId, now).isEmpty()) {
                    stuck++;
                }
                dir.segmentGone(segmentId);
            }
        } finally {
            go.set(Long.MAX_VALUE);
            attacher.join();
        }
        assertEquals(0, missed, "acquires during a writable attach that kept lines, of " + rounds);
        assertEquals(0, stuck, "segments still counted as written by a local attach after its detach, of " + rounds);
    }

    private static void await(AtomicLong at, long value) {
        for (int n = 0; at.get() < value; n++) {
            if ((n & 0xff) == 0xff) {
                Thread.yield();
            } else {
                Thread.onSpinWait();
            }
        }
    }

    /** Small segment ids, reused round after round: this race apart from the boxing of the test above. */
    private static long segment(int i) {
        return 1 + i % 100;
    }

    private static void spin(int n) {
        for (int i = 0; i < n; i++) {
            Thread.onSpinWait();
        }
    }

    /**
     * A detached cache's FORGET: its record goes (the count {@code cmiadm dataplane} shows), and
     * with it what the home would report after its context died; only the asker's own node's
     * record goes; an unknown id is no error; the log of its writes stays for the other caches.
     */
    @Test
    void shouldForgetADetachedCacheOfTheAskersNodeOnly() {
        CoherenceDirectory dir = new CoherenceDirectory();
        long since = dir.filled(7, CACHE, NODE, 1, true, 0, 1024);
        dir.wrote(7, CACHE, NODE, 0, 8);
        assertEquals(1, dir.sizes()[1]);
        assertEquals(false, dir.forget(7, CACHE, new byte[] {9, 9, 9, 9}, 1), "another node's FORGET");
        assertEquals(false, dir.forget(7, CACHE, NODE, 2), "another context's FORGET");
        assertEquals(false, dir.forget(7, CACHE + 1, NODE, 1), "an unknown cache");
        assertEquals(false, dir.forget(8, CACHE, NODE, 1), "a segment without a directory");
        assertEquals(1, dir.sizes()[1]);
        assertTrue(dir.forget(7, CACHE, NODE, 1));
        assertEquals(0, dir.sizes()[1]);
        assertTrue(dir.dropHolders(NODE, 1).isEmpty(), "a forgotten cache holds nothing unwritten");
        ByteBuffer out = ByteBuffer.allocate(16 * 300).order(ByteOrder.LITTLE_ENDIAN);
        dir.changes(7, SIZE, since, CACHE + 2, out, 256); // another cache still sees the write
        assertEquals(16, out.position());
        assertEquals(0, out.getLong(0));
        assertTrue(out.getLong(8) >= 8);
    }
}
