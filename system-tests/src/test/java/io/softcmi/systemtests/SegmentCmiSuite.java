package io.softcmi.systemtests;

import io.softcmi.cmi.AttachFlag;
import io.softcmi.cmi.CmiAccessError;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiInfo;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.SegFlag;
import io.softcmi.cmi.SegInfo;
import io.softcmi.cmi.SegState;
import io.softcmi.cmi.SegStatus;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import static io.softcmi.systemtests.CmiAssertions.assertAccessError;
import static io.softcmi.systemtests.CmiAssertions.assertCmiError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Part of {@link AbstractSingleNodeCmiTest}: {@code seg_get}, {@code seg_at}/{@code seg_dt},
 * {@code CMI_SEG_RM}/{@code STATUS}/{@code INFO}, segment ids, and segment lifetime (cmi(7)
 * "Segment Lifetime").
 */
abstract class SegmentCmiSuite extends ContextCmiSuite {
    private static final Set<AttachFlag> READ_WRITE = Set.of();
    private static final Set<AttachFlag> READ_ONLY = EnumSet.of(AttachFlag.READ);

    // ---- seg_get ----

    @Test
    void shouldRejectSegGetOfZeroOrNegativeSize() {
        assertCmiError(CmiError.INVAL, () -> ctx.segGet(0, NO_FLAGS));
        assertCmiError(CmiError.INVAL, () -> ctx.segGet(-page, NO_FLAGS));
    }

    @Test
    void shouldRejectSegGetOfSizeNotMultipleOfProtUnits() {
        for (long size : new long[] {1, page - 1, page + 1, page / 2 + page, 3 * page + 4}) {
            assertCmiError(CmiError.INVAL, () -> ctx.segGet(size, NO_FLAGS));
        }
    }

    @Test
    void shouldRejectSegGetBeyondMaxSegSz() {
        long max = info().maxSegSz();
        long beyond = (max / page + 1) * page;
        assertCmiError(CmiError.INVAL, () -> ctx.segGet(beyond, NO_FLAGS));
        assertCmiError(CmiError.INVAL, () -> ctx.segGet(beyond, EnumSet.of(SegFlag.NORESERVE)));
    }

    @Test
    void shouldRejectSegGetWithBothConsistencyModes() {
        assertCmiError(CmiError.INVAL, () -> ctx.segGet(page,
            EnumSet.of(SegFlag.CLIENT_CONSIST, SegFlag.CLIENT_INCONSIST)));
    }

    @Test
    void shouldFailLargePagesSegGetWithNoMemWhenNoLargePagesAreConfigured() {
        long size = info().segLrgpgAlignment();
        assertCmiError(CmiError.NOMEM, () -> ctx.segGet(size, EnumSet.of(SegFlag.LARGE_PAGES)));
    }

    @Test
    void shouldFailSegGetBeyondAvailableMemoryWithNoMem() {
        CmiInfo i = info();
        // Take everything that is available with NORESERVE segments (no memory is touched), then
        // one more protection unit is too much.
        List<CmiSegment> fillers = new ArrayList<>();
        long left = i.maxMemAvail();
        for (int n = 0; n < 64 && left > 0; n++) {
            long size = Math.min(left, i.maxSegSz() / page * page);
            fillers.add(ctx.segGet(size, EnumSet.of(SegFlag.NORESERVE)));
            left -= size;
        }
        assertEquals(0, available());
        assertCmiError(CmiError.NOMEM, () -> ctx.segGet(page, NO_FLAGS));
        fillers.forEach(ctx::segRemove);
        assertEquals(i.maxMemAvail(), available(), "removed segments give their memory back");
    }

    @Test
    void shouldFailSegGetWithNoMemWhenAllMemoryIsReservedByAnotherContext() {
        ContextThread other = otherContext();
        long all = available();
        other.run(c -> reserve(c, all));
        assertEquals(0, available());
        assertCmiError(CmiError.NOMEM, () -> ctx.segGet(page, NO_FLAGS));
        other.run(CmiContext::ctlMemReserveDel);
        assertEquals(all, available());
        ctx.segRemove(ctx.segGet(page, NO_FLAGS));
    }

    @Test
    void shouldCreateSegmentWithItsSizeFlagsAndDefaults() {
        CmiSegment seg = newSegment(4, SegFlag.NORESERVE, SegFlag.LOCK);
        assertEquals(4 * page, seg.size());
        assertFalse(seg.imported());
        assertEquals(ctx.nodeAddress(), seg.home());

        SegStatus st = ctx.segStatus(seg);
        assertEquals(seg.id(), st.segId());
        assertEquals(4 * page, st.segSz());
        assertEquals(4 * page, st.segBrk(), "the break of a segment that is not extensible is its size");
        assertEquals(EnumSet.of(SegFlag.NORESERVE, SegFlag.LOCK, SegFlag.CLIENT_INCONSIST), st.segFlags(),
            "client inconsistent is the default mode");
        assertEquals(SegState.ACTIVE, st.state());
        assertEquals(0, st.attachCount());
        assertEquals(ProcessHandle.current().pid(), st.creatorPid());
        assertFalse(st.exported());
        assertFalse(st.imported());
        assertEquals(ctx.nodeAddress(), st.home());

        SegInfo si = ctx.segInfo(seg);
        assertEquals(4 * page, si.segSz());
        assertEquals(st.segFlags(), si.segFlags());
        assertEquals(info().segAlignment(), si.segAlign(), "seg_align matches CMI_CTL_INFO for normal segments");
        assertTrue(si.segProtAlign() > 0 && si.segProtSz() > 0);
        assertTrue(Files.exists(segmentFile(seg.id())), "its memory lives in " + segmentFile(seg.id()));
    }

    @Test
    void shouldUseClientConsistentModeWhenAskedOrMadeTheDefault() {
        assertEquals(EnumSet.of(SegFlag.CLIENT_CONSIST), ctx.segStatus(newSegment(1, SegFlag.CLIENT_CONSIST)).segFlags());
        ctx.ctlClientConsist();
        assertEquals(EnumSet.of(SegFlag.CLIENT_CONSIST), ctx.segStatus(newSegment(1)).segFlags());
        assertEquals(EnumSet.of(SegFlag.CLIENT_INCONSIST),
            ctx.segStatus(newSegment(1, SegFlag.CLIENT_INCONSIST)).segFlags(),
            "inconsistent segments can still be made after CMI_CTL_CLIENT_CONSIST");
        ContextThread other = otherContext();
        assertEquals(EnumSet.of(SegFlag.CLIENT_INCONSIST),
            other.call(c -> c.segStatus(c.segGet(page, NO_FLAGS)).segFlags()),
            "the default mode is per context");
    }

    @Test
    void shouldNeverReuseSegmentIds() {
        CmiSegment a = newSegment(1);
        CmiSegment b = newSegment(1);
        assertNotEquals(a.id(), b.id());
        ctx.segRemove(a);
        CmiSegment c = newSegment(1);
        assertNotEquals(a.id(), c.id());
        assertNotEquals(b.id(), c.id());
    }

    // ---- seg_at / seg_dt ----

    @Test
    void shouldShareDataBetweenAttachesOfOneSegment() {
        CmiSegment seg = newSegment(2);
        CmiMapping m1 = ctx.segAt(seg, READ_WRITE);
        CmiMapping m2 = ctx.segAt(seg, READ_WRITE);
        assertEquals(2 * page, m1.size());
        assertEquals(seg.id(), m1.segment().id());
        assertFalse(m1.readOnly());

        m1.putByte(1, (byte) 0x5a);
        m1.putShort(2, (short) 0x1234);
        m1.putInt(4, 0xcafebabe);
        m1.putLong(8, 0x0102030405060708L);
        m1.putFloat(16, 1.5f);
        m1.putDouble(24, -2.25);
        assertEquals((byte) 0x5a, m2.getByte(1));
        assertEquals((short) 0x1234, m2.getShort(2));
        assertEquals(0xcafebabe, m2.getInt(4));
        assertEquals(0x0102030405060708L, m2.getLong(8));
        assertEquals(1.5f, m2.getFloat(16));
        assertEquals(-2.25, m2.getDouble(24));

        byte[] bytes = new byte[100];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = Workers.pattern(7, i);
        }
        m2.put(page - 50, bytes, 0, bytes.length);
        byte[] back = new byte[100];
        m1.get(page - 50, back, 0, back.length);
        assertArrayEquals(bytes, back);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(64);
            src.fill((byte) 9);
            m1.put(page + 64, src);
            MemorySegment dst = arena.allocate(64);
            m2.get(page + 64, dst);
            assertEquals((byte) 9, dst.get(ValueLayout.JAVA_BYTE, 63));
        }

        ContextThread other = otherContext();
        long fromOther = other.call(c -> {
            CmiMapping m3 = c.segAt(c.segFromId(seg.id()), READ_WRITE);
            m3.putLong(32, 77);
            return m3.getLong(8);
        });
        assertEquals(0x0102030405060708L, fromOther, "another context reads what this one wrote");
        assertEquals(77, m1.getLong(32), "and this one reads what it wrote");
        assertEquals(3, ctx.segStatus(seg).attachCount());
    }

    @Test
    void shouldRejectStoreThroughReadOnlyAttach() {
        CmiSegment seg = newSegment(2);
        CmiMapping rw = ctx.segAt(seg, READ_WRITE);
        rw.putLong(0, 42);
        CmiMapping ro = ctx.segAt(seg, READ_ONLY);
        assertTrue(ro.readOnly());
        assertEquals(42, ro.getLong(0), "loads through a read-only attach work");

        long id = seg.id();
        assertAccessError(CmiAccessError.PERM, id, 8, () -> ro.putLong(8, 1));
        assertAccessError(CmiAccessError.PERM, id, 100, () -> ro.putByte(100, (byte) 1));
        assertAccessError(CmiAccessError.PERM, id, 200, () -> ro.putShort(200, (short) 1));
        assertAccessError(CmiAccessError.PERM, id, 300, () -> ro.putInt(300, 1));
        assertAccessError(CmiAccessError.PERM, id, 400, () -> ro.putFloat(400, 1));
        assertAccessError(CmiAccessError.PERM, id, 504, () -> ro.putDouble(504, 1));
        assertAccessError(CmiAccessError.PERM, id, page, () -> ro.put(page, new byte[16], 0, 16));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(16);
            assertAccessError(CmiAccessError.PERM, id, page + 16, () -> ro.put(page + 16, src));
        }
        assertAccessError(CmiAccessError.PERM, id, 0, () -> ctx.atmCas(ro, 0, 42, 43));
        assertEquals(42, rw.getLong(0), "the refused atm_cas changed nothing");
        assertEquals(0, rw.getLong(8), "the refused store changed nothing");
    }

    @Test
    void shouldRejectAttachOfSegmentMarkedForDeletionButKeepExistingAttaches() {
        CmiSegment seg = newSegment(1);
        CmiMapping m = ctx.segAt(seg, READ_WRITE);
        m.putLong(0, 11);
        ContextThread other = otherContext();
        other.run(c -> c.segFromId(seg.id())); // known to the other context before the mark

        ctx.segRemove(seg);
        assertEquals(SegState.MARKED_FOR_DELETION, ctx.segStatus(seg).state());
        assertCmiError(CmiError.INVAL, () -> ctx.segAt(seg, READ_WRITE));
        assertCmiError(CmiError.INVAL, () -> ctx.segAt(seg, READ_ONLY));
        other.run(c -> assertCmiError(CmiError.INVAL, () -> c.segAt(c.segFromId(seg.id()), READ_WRITE)));

        m.putLong(8, 12);
        assertEquals(11, m.getLong(0), "an existing attach keeps working");
        assertEquals(12, m.getLong(8));
        assertTrue(Files.exists(segmentFile(seg.id())));

        ctx.segDt(m);
        assertFalse(Files.exists(segmentFile(seg.id())), "the last detach reclaims the segment");
        assertCmiError(CmiError.INVAL, () -> ctx.segFromId(seg.id()));
        assertCmiError(CmiError.INVAL, () -> ctx.segStatus(seg));
        assertCmiError(CmiError.INVAL, () -> ctx.segRemove(seg));
    }

    @Test
    void shouldRejectAttachOfASegmentWhoseFileWasRemovedBehindTheNodesBackWithInval() throws java.io.IOException {
        CmiSegment seg = newSegment(1);
        Files.delete(segmentFile(seg.id()));
        assertCmiError(CmiError.INVAL, () -> ctx.segAt(seg, READ_WRITE));
        assertEquals(0, ctx.segStatus(seg).attachCount(), "the failed attach was undone at the node");
        ctx.segRemove(seg);
    }

    @Test
    void shouldFailAnAttachWithNomemWhenTheProcessHasNoFileDescriptorLeftAndLoseNothing() throws Exception {
        CmiSegment seg = newSegment(1);
        CmiMapping m = ctx.segAt(seg, READ_WRITE);
        m.putLong(0, 42);
        ctx.segDt(ctx.segAt(seg, READ_WRITE)); // loads the attach's and the detach's classes: none can be loaded below
        Class.forName(io.softcmi.cmi.CmiException.class.getName());
        io.softcmi.cmi.CmiException failed = null;
        FileDescriptorsExhausted none = FileDescriptorsExhausted.now();
        try {
            ctx.segAt(seg, READ_WRITE);
        } catch (io.softcmi.cmi.CmiException e) {
            failed = e;
        } finally {
            none.close();
        }
        assertTrue(failed != null, "an attach with no file descriptor left");
        assertEquals(CmiError.NOMEM, failed.error(), failed.toString());
        assertEquals(1, ctx.segStatus(seg).attachCount(), "the failed attach was undone at the node");
        CmiMapping again = ctx.segAt(seg, READ_WRITE);
        assertEquals(42, again.getLong(0), "the segment lost nothing");
        ctx.segDt(again);
        ctx.segDt(m);
        ctx.segRemove(seg);
    }

    @Test
    void shouldReclaimRemovedSegmentAtOnceWhenNothingIsAttached() {
        long before = available();
        CmiSegment seg = newSegment(3);
        assertEquals(before - 3 * page, available());
        ctx.segRemove(seg);
        assertEquals(before, available());
        assertFalse(Files.exists(segmentFile(seg.id())));
        assertCmiError(CmiError.INVAL, () -> ctx.segFromId(seg.id()));
    }

    @Test
    void shouldRejectSegRemoveFromContextThatDidNotCreateTheSegment() {
        CmiSegment seg = newSegment(1);
        ContextThread other = otherContext();
        other.run(c -> assertCmiError(CmiError.PERM, () -> c.segRemove(c.segFromId(seg.id()))));
        assertEquals(SegState.ACTIVE, ctx.segStatus(seg).state());
    }

    @Test
    void shouldMarkSegmentsOfAContextThatEndsAndKeepAttachesWorking() {
        ContextThread other = otherContext();
        long[] ids = other.call(c -> {
            CmiSegment unattached = c.segGet(page, NO_FLAGS);
            CmiSegment shared = c.segGet(page, NO_FLAGS);
            CmiMapping m = c.segAt(shared, READ_WRITE);
            m.putLong(0, 99);
            return new long[] {unattached.id(), shared.id()};
        });
        CmiSegment shared = ctx.segFromId(ids[1]);
        CmiMapping m = ctx.segAt(shared, READ_ONLY);

        other.close(); // the creator's context ends, as if its process exited
        // The node applies the lifetime rules when it sees the session's socket close: soon
        // after close() returns, not before (architecture.md 3.2). Wait for it, bounded.
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        while (segmentFile(ids[0]).toFile().exists() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
        }
        assertCmiError(CmiError.INVAL, () -> ctx.segFromId(ids[0]));
        assertFalse(Files.exists(segmentFile(ids[0])), "nothing was attached: reclaimed at once");
        SegStatus st = ctx.segStatus(shared);
        assertEquals(SegState.MARKED_FOR_DELETION, st.state());
        assertEquals(1, st.attachCount(), "the creator's own attach went with its context");
        assertEquals(99, m.getLong(0), "the survivor keeps reading");
        assertCmiError(CmiError.INVAL, () -> ctx.segAt(shared, READ_ONLY));

        ctx.segDt(m);
        assertFalse(Files.exists(segmentFile(ids[1])));
        assertCmiError(CmiError.INVAL, () -> ctx.segFromId(ids[1]));
    }

    @Test
    void shouldRejectSegFromIdOfUnknownSegment() {
        assertCmiError(CmiError.INVAL, () -> ctx.segFromId(Long.MAX_VALUE));
        assertCmiError(CmiError.INVAL, () -> ctx.segFromId(0));
        assertCmiError(CmiError.INVAL, () -> ctx.segFromId(-7));
    }

    @Test
    void shouldFindSegmentByIdFromAnotherContext() {
        CmiSegment seg = newSegment(5);
        ContextThread other = otherContext();
        assertEquals(5 * page, (long) other.call(c -> c.segFromId(seg.id()).size()));
        assertEquals(ctx.segFromId(seg.id()).id(), seg.id());
    }

    @Test
    void shouldRejectSegDtOfMappingDetachedOrNotOfThisContext() {
        CmiMapping m = ctx.segAt(newSegment(1), READ_WRITE);
        ContextThread other = otherContext();
        other.run(c -> assertCmiError(CmiError.INVAL, () -> c.segDt(m)));
        ctx.segDt(m);
        assertCmiError(CmiError.INVAL, () -> ctx.segDt(m));
        assertThrows(IllegalStateException.class, () -> m.getLong(0), "access after seg_dt is not a CMI error");
        assertThrows(IllegalStateException.class, () -> m.putLong(0, 1));
    }

    @Test
    void shouldThrowIndexOutOfBoundsOutsideTheMapping() {
        CmiMapping m = ctx.segAt(newSegment(1), READ_WRITE);
        assertThrows(IndexOutOfBoundsException.class, () -> m.getLong(page - 4));
        assertThrows(IndexOutOfBoundsException.class, () -> m.getByte(-1));
        assertThrows(IndexOutOfBoundsException.class, () -> m.putByte(page, (byte) 1));
        assertThrows(IndexOutOfBoundsException.class, () -> m.get(page - 8, new byte[16], 0, 16));
        assertThrows(IndexOutOfBoundsException.class, () -> ctx.atmCas(m, page, 0, 1));
    }

    @Test
    void shouldCountAllocationsOfAllFlagsAgainstAvailableMemory() {
        long before = available();
        CmiSegment a = newSegment(2, SegFlag.NORESERVE);
        CmiSegment b = newSegment(3, SegFlag.LOCK);
        assertEquals(before - 5 * page, available());
        ctx.segRemove(a);
        ctx.segRemove(b);
        assertEquals(before, available());
    }

    /** {@code cmi_enb}: loads and stores of a local segment need the calling thread's access epoch too. */
    @Test
    void shouldGateLocalAccessWithTheThreadsAccessEpoch() {
        CmiSegment seg = newSegment(1);
        CmiMapping m = ctx.segAt(seg, READ_WRITE);
        long id = seg.id();
        m.putLong(0, 7);
        ctx.enable(false);
        assertAccessError(CmiAccessError.ENABLE, id, 0, () -> m.getLong(0));
        assertAccessError(CmiAccessError.ENABLE, id, 8, () -> m.putLong(8, 1));
        assertAccessError(CmiAccessError.ENABLE, id, 16, () -> ctx.atmCas(m, 16, 0, 1));
        assertAccessError(CmiAccessError.ENABLE, id, 32, () -> m.get(32, new byte[8], 0, 8));
        ctx.enable(true);
        assertEquals(7, m.getLong(0));
        ContextThread.runOnFreshThread(() -> {
            ctx.iniTh();
            try {
                assertAccessError(CmiAccessError.ENABLE, id, 0, () -> m.getLong(0)); // another thread has its own epoch
                ctx.enable(true);
                assertEquals(7, m.getLong(0));
            } finally {
                ctx.fini();
            }
        });
        assertEquals(7, m.getLong(0), "this thread's epoch is still open");
    }
}
