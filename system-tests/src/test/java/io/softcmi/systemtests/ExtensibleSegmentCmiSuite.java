package io.softcmi.systemtests;

import io.softcmi.cmi.AttachFlag;
import io.softcmi.cmi.CmiAccessError;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.SegFlag;
import io.softcmi.cmi.SegStatus;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.Set;

import static io.softcmi.systemtests.CmiAssertions.assertAccessError;
import static io.softcmi.systemtests.CmiAssertions.assertCmiError;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Part of {@link AbstractSingleNodeCmiTest}: extensible segments ({@code CMI_SEG_EXTENSIBLE},
 * {@code CMI_SEG_BRK}; cmi(7) "Extensible Segments").
 */
abstract class ExtensibleSegmentCmiSuite extends SegmentCmiSuite {
    private static final int MAX_PAGES = 16;

    private CmiSegment extensible() {
        return newSegment(MAX_PAGES, SegFlag.EXTENSIBLE);
    }

    private long brk(CmiSegment seg) {
        return ctx.segStatus(seg).segBrk();
    }

    @Test
    void shouldCreateExtensibleSegmentWithBreakZero() {
        CmiSegment seg = extensible();
        SegStatus st = ctx.segStatus(seg);
        assertEquals(0, st.segBrk());
        assertEquals(MAX_PAGES * page, st.segSz(), "the size of an extensible segment is its maximum");
        assertEquals(MAX_PAGES * page, ctx.segInfo(seg).segSz());
        CmiMapping m = ctx.segAt(seg, Set.of());
        assertAccessError(CmiAccessError.SEG_BRK, seg.id(), 0, () -> m.getByte(0));
        assertAccessError(CmiAccessError.SEG_BRK, seg.id(), 8 * page, () -> m.putLong(8 * page, 1));
    }

    @Test
    void shouldAllowAccessBelowTheBreakOnly() {
        CmiSegment seg = extensible();
        CmiMapping m = ctx.segAt(seg, Set.of());
        ctx.segBreak(seg, 4 * page);
        assertEquals(4 * page, brk(seg));
        m.putLong(4 * page - 8, 5);
        assertEquals(5, m.getLong(4 * page - 8));
        assertEquals(5, ctx.atmCas(m, 4 * page - 8, 5, 6));
        long id = seg.id();
        assertAccessError(CmiAccessError.SEG_BRK, id, 4 * page, () -> m.getLong(4 * page));
        assertAccessError(CmiAccessError.SEG_BRK, id, 4 * page, () -> m.putByte(4 * page, (byte) 1));
        assertAccessError(CmiAccessError.SEG_BRK, id, 4 * page - 4, () -> m.getLong(4 * page - 4));
        assertAccessError(CmiAccessError.SEG_BRK, id, 4 * page - 8,
            () -> m.put(4 * page - 8, new byte[16], 0, 16));
        assertAccessError(CmiAccessError.SEG_BRK, id, 5 * page, () -> ctx.atmCas(m, 5 * page, 0, 1));
    }

    @Test
    void shouldReadZerosFromMemoryGrownAgainAfterAShrink() {
        CmiSegment seg = extensible();
        CmiMapping m = ctx.segAt(seg, Set.of());
        ctx.segBreak(seg, 4 * page);
        for (long off = 0; off < 4 * page; off++) {
            m.putByte(off, (byte) (Workers.pattern(3, off) | 1));
        }
        ctx.segBreak(seg, page);
        ctx.segBreak(seg, 4 * page);
        for (long off = 0; off < page; off++) {
            assertEquals((byte) (Workers.pattern(3, off) | 1), m.getByte(off), "kept below the lowest break");
        }
        long firstNonZero = -1;
        for (long off = page; off < 4 * page && firstNonZero < 0; off++) {
            if (m.getByte(off) != 0) {
                firstNonZero = off;
            }
        }
        assertEquals(-1, firstNonZero, "memory grown again reads zero");
    }

    /**
     * A store that checked the break just before a shrink and lands after it (simulated here by
     * writing the segment file through a raw mapping of its own once the break moved down) must
     * not show when the break grows again: the grow frees the range once more.
     */
    @Test
    void shouldReadZerosAfterARegrowEvenWhereAStoreRacedTheShrink() throws java.io.IOException {
        CmiSegment seg = extensible();
        CmiMapping m = ctx.segAt(seg, Set.of());
        ctx.segBreak(seg, 4 * page);
        ctx.segBreak(seg, page);
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(segmentFile(seg.id()),
                java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE);
                java.lang.foreign.Arena a = java.lang.foreign.Arena.ofConfined()) {
            java.lang.foreign.MemorySegment raw = ch.map(java.nio.channels.FileChannel.MapMode.READ_WRITE,
                io.softcmi.wire.SegmentFileLayout.HEADER_SIZE, 4 * page, a);
            raw.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 2 * page + 8, 0x5EEDL); // the late store
        }
        ctx.segBreak(seg, 4 * page);
        assertEquals(0L, m.getLong(2 * page + 8), "memory grown again reads zero, whatever raced the shrink");
    }

    @Test
    void shouldThrowSegBrkInEveryAttachOfTheSegment() {
        CmiSegment seg = extensible();
        CmiMapping rw = ctx.segAt(seg, Set.of());
        CmiMapping ro = ctx.segAt(seg, EnumSet.of(AttachFlag.READ));
        ContextThread other = otherContext();
        CmiMapping others = other.call(c -> c.segAt(c.segFromId(seg.id()), Set.of()));
        ctx.segBreak(seg, 2 * page);
        rw.putLong(page, 7);
        assertEquals(7, ro.getLong(page));
        assertEquals(7L, (long) other.call(c -> others.getLong(page)));

        ctx.segBreak(seg, page);
        assertAccessError(CmiAccessError.SEG_BRK, seg.id(), page, () -> rw.getLong(page));
        assertAccessError(CmiAccessError.SEG_BRK, seg.id(), page, () -> ro.getLong(page));
        other.run(c -> assertAccessError(CmiAccessError.SEG_BRK, seg.id(), page, () -> others.putLong(page, 1)));
    }

    @Test
    void shouldRejectSegBreakOfSegmentThatIsNotExtensible() {
        CmiSegment seg = newSegment(4);
        assertCmiError(CmiError.INVAL, () -> ctx.segBreak(seg, page));
        assertCmiError(CmiError.INVAL, () -> ctx.segBreak(seg, 4 * page));
    }

    @Test
    void shouldRejectSegBreakNotMultipleOfProtUnits() {
        CmiSegment seg = extensible();
        assertCmiError(CmiError.INVAL, () -> ctx.segBreak(seg, 1));
        assertCmiError(CmiError.INVAL, () -> ctx.segBreak(seg, page + page / 2));
        assertEquals(0, brk(seg));
    }

    @Test
    void shouldRejectSegBreakBeyondTheMaximumSize() {
        CmiSegment seg = extensible();
        assertCmiError(CmiError.INVAL, () -> ctx.segBreak(seg, (MAX_PAGES + 1) * page));
        assertCmiError(CmiError.INVAL, () -> ctx.segBreak(seg, -page));
        ctx.segBreak(seg, MAX_PAGES * page);
        assertEquals(MAX_PAGES * page, brk(seg), "the maximum itself is allowed");
    }

    @Test
    void shouldRejectSegBreakFromContextThatDidNotCreateTheSegment() {
        CmiSegment seg = extensible();
        ctx.segBreak(seg, page);
        ContextThread other = otherContext();
        other.run(c -> {
            CmiSegment s = c.segFromId(seg.id());
            assertCmiError(CmiError.PERM, () -> c.segBreak(s, 2 * page));
            assertCmiError(CmiError.PERM, () -> c.segBreak(s, 0));
        });
        assertEquals(page, brk(seg));
    }

    @Test
    void shouldFailGrowingTheBreakBeyondAvailableMemoryWithNoMem() {
        CmiSegment seg = extensible();
        ContextThread other = otherContext();
        long all = available();
        other.run(c -> reserve(c, all));
        assertCmiError(CmiError.NOMEM, () -> ctx.segBreak(seg, page));
        assertEquals(0, brk(seg));
        other.run(CmiContext::ctlMemReserveDel);
        ctx.segBreak(seg, page);
        assertEquals(page, brk(seg));
    }

    @Test
    void shouldChargeOnlyTheBreakAgainstAvailableMemory() {
        long before = available();
        CmiSegment seg = extensible();
        assertEquals(before, available(), "a segment with break 0 has no memory");
        ctx.segBreak(seg, 4 * page);
        assertEquals(before - 4 * page, available());
        ctx.segBreak(seg, page);
        assertEquals(before - page, available());
        ctx.segRemove(seg);
        assertEquals(before, available());
    }
}
