package io.softcmi.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.cmi.internal.NodeAddressImpl;
import io.softcmi.wire.SegmentFileLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The log entries of write-through stores ({@link CoherentAccess#put}, {@link
 * CoherentAccess#bulkPutStarting}): a store's bytes never land while an acquire of a cached
 * segment is being answered without its entry, and a store that streams in is named from before
 * its first byte to after its last.
 */
@Timeout(60)
class CoherentPutTest {
    private static final long SEGMENT = 301;
    private static final long SIZE = 64 * 1024;
    private static final long READER_CACHE = 0xBBBB;
    private static final byte[] NODE = {3, 3, 3, 3};

    private final Arena arena = Arena.ofShared();
    private final NodeState state = new NodeState(new NodeConfig(), new NodeAddressImpl(new byte[16], "", 0), null);
    private final HomeAccess access = new HomeAccess(state);
    private final MemorySegment data;
    private final CoherentAccess writer = new CoherentAccess(new DataHandshake.DataClient(NODE, 1), access,
        new DataPathStats());

    CoherentPutTest() {
        MemorySegment whole = arena.allocate(SegmentFileLayout.HEADER_SIZE + SIZE, 4096);
        RemoteTarget target = new RemoteTarget(SEGMENT, SIZE, false, whole);
        data = target.data;
        state.targets.put(SEGMENT, target);
    }

    @AfterEach
    void close() {
        arena.close();
    }

    /**
     * An acquire is answered under the directory's monitor. A store that comes meanwhile must
     * wait for it: had its bytes landed with no entry yet, a fill by another cache could return
     * them while this acquire let its asker keep the old line, and the two readers would see the
     * store in different orders.
     */
    @Test
    void shouldNotLandAStoreWhileTheDirectoryAnswersAnAcquire() throws Exception {
        long epoch = access.coherence().filled(SEGMENT, READER_CACHE, NODE, 1, false, 0, 4096); // a cache holds line 0
        MemorySegment src = arena.allocate(8, 8);
        src.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 42);
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread acquirer = Thread.ofPlatform().start(() -> {
            synchronized (access.coherence().monitor(SEGMENT, false)) { // as changes() holds it
                held.countDown();
                await(release);
            }
        });
        assertTrue(held.await(10, TimeUnit.SECONDS));
        Thread putter = Thread.ofPlatform().start(() -> writer.put(SEGMENT, 64, src, 0, data.asSlice(64, 8), 8, 0));
        putter.join(200); // bounded: the store must still be waiting
        long whileHeld = data.get(ValueLayout.JAVA_LONG_UNALIGNED, 64);
        release.countDown();
        putter.join();
        acquirer.join();
        assertEquals(0, whileHeld, "the store landed while an acquire held the directory");
        assertEquals(42, data.get(ValueLayout.JAVA_LONG_UNALIGNED, 64), "the store landed after it");
        assertTrue(names(acquire(epoch), 64, 72), "and an acquire since the fill names it");
    }

    /** Without a directory (nobody caches the segment) the store lands and nothing is logged. */
    @Test
    void shouldLandAStoreToASegmentNobodyCaches() {
        MemorySegment src = arena.allocate(16, 8);
        src.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 7);
        src.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, 8);
        writer.put(SEGMENT, 128, src, 0, data.asSlice(128, 16), 16, 8);
        assertEquals(7, data.get(ValueLayout.JAVA_LONG_UNALIGNED, 128));
        assertEquals(8, data.get(ValueLayout.JAVA_LONG_UNALIGNED, 136));
        assertEquals(null, access.coherence().monitor(SEGMENT, false), "no directory was made for it");
    }

    /** A store that streams in is named by an acquire made before its first byte lands, and after its last. */
    @Test
    void shouldNameAStreamedStoreFromBeforeItsFirstByte() {
        long epoch = access.coherence().filled(SEGMENT, READER_CACHE, NODE, 1, false, 0, SIZE);
        writer.bulkPutStarting(SEGMENT, 8192, 16384);
        ByteBuffer out = ByteBuffer.allocate(16 * 300).order(ByteOrder.LITTLE_ENDIAN);
        long during = access.coherence().changes(SEGMENT, SIZE, epoch, READER_CACHE, out, 256);
        assertTrue(names(ranges(out), 8192, 8192 + 16384), "an acquire while it streams names it");
        // ... a fill made while it streams may return some of its bytes with a later epoch
        long refilled = access.coherence().filled(SEGMENT, READER_CACHE, NODE, 1, false, 8192, 4096);
        assertTrue(refilled >= during);
        writer.bulkPutEnded(SEGMENT, 8192, 16384);
        assertTrue(names(acquire(refilled), 8192, 8192 + 16384), "an acquire after its last byte names it again");
    }

    private List<long[]> acquire(long since) {
        ByteBuffer out = ByteBuffer.allocate(16 * 300).order(ByteOrder.LITTLE_ENDIAN);
        access.coherence().changes(SEGMENT, SIZE, since, READER_CACHE, out, 256);
        return ranges(out);
    }

    private static List<long[]> ranges(ByteBuffer out) {
        out.flip();
        List<long[]> ranges = new ArrayList<>();
        while (out.remaining() >= 16) {
            ranges.add(new long[] {out.getLong(), out.getLong()});
        }
        return ranges;
    }

    private static boolean names(List<long[]> ranges, long start, long end) {
        return ranges.stream().anyMatch(r -> r[0] <= start && r[1] >= end);
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
