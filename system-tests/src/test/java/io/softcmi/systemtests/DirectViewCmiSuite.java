package io.softcmi.systemtests;

import static io.softcmi.systemtests.CmiAssertions.assertAccessError;
import static io.softcmi.systemtests.CmiAssertions.assertCmiError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.cmi.AttachFlag;
import io.softcmi.cmi.CmiAccessError;
import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.SegFlag;
import io.softcmi.cmi.direct.DirectViews;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Part of {@link AbstractSingleNodeCmiTest}: direct views of local attaches (the softcmi
 * extension {@code io.softcmi.cmi.direct.DirectViews}, docs/direct.md), one test per rule. The
 * refusal of imports is in {@link CrossNodeImportTest}.
 */
abstract class DirectViewCmiSuite extends SharingCmiSuite {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    @Test
    void shouldGiveADirectViewOfTheAttachsMemoryBothWaysAndToOtherAttaches() {
        CmiSegment seg = newSegment(2);
        CmiMapping m = ctx.segAt(seg, Set.of());
        MemorySegment v = DirectViews.view(m);
        assertEquals(m.size(), v.byteSize());
        v.set(LONG, 8, 0x1122334455667788L);
        assertEquals(0x1122334455667788L, m.getLong(8), "a store through the view, read through the mapping");
        m.putLong(2 * page - 8, -5);
        assertEquals(-5, v.get(LONG, 2 * page - 8), "a store through the mapping, read through the view");
        ContextThread other = otherContext();
        long seen = other.call(c -> c.segAt(c.segFromId(seg.id()), Set.of()).getLong(8));
        assertEquals(0x1122334455667788L, seen, "another process's attach sees the view's store");
    }

    @Test
    void shouldGiveAReadOnlyDirectViewOfAReadOnlyAttach() {
        CmiSegment seg = newSegment(1);
        CmiMapping m = ctx.segAt(seg, Set.of());
        m.putLong(0, 77);
        MemorySegment v = DirectViews.view(ctx.segAt(seg, EnumSet.of(AttachFlag.READ)));
        assertTrue(v.isReadOnly());
        assertEquals(77, v.get(LONG, 0));
        assertThrows(RuntimeException.class, () -> v.set(LONG, 0, 1));
        assertEquals(77, m.getLong(0));
        assertFalse(DirectViews.view(m).isReadOnly(), "the writable attach's view stays writable");
    }

    @Test
    void shouldEndTheDirectViewWithTheAttach() {
        CmiSegment seg = newSegment(1);
        CmiMapping first = ctx.segAt(seg, Set.of());
        CmiMapping second = ctx.segAt(seg, Set.of());
        MemorySegment v = DirectViews.view(second);
        v.set(LONG, 0, 3);
        ctx.segDt(second);
        assertThrows(IllegalStateException.class, () -> v.get(LONG, 0));
        assertThrows(IllegalStateException.class, () -> DirectViews.view(second));
        assertEquals(3, first.getLong(0), "the segment and its other attach live on");
    }

    @Test
    void shouldEndTheDirectViewWithTheContext() {
        CmiSegment seg = newSegment(1);
        CmiMapping mine = ctx.segAt(seg, Set.of());
        ContextThread other = otherContext();
        MemorySegment v = other.call(c -> DirectViews.view(c.segAt(c.segFromId(seg.id()), Set.of())));
        v.set(LONG, 0, 4);
        other.close(); // fini detaches everything
        assertThrows(IllegalStateException.class, () -> v.get(LONG, 0), "a view outliving its context's fini");
        assertEquals(4, mine.getLong(0), "the segment and the creator's attach live on");
    }

    @Test
    void shouldNeedAnEnabledThreadToMakeADirectViewAndNotToUseIt() {
        CmiSegment seg = newSegment(1);
        CmiMapping m = ctx.segAt(seg, Set.of());
        MemorySegment v = DirectViews.view(m);
        ctx.enable(false);
        try {
            assertAccessError(CmiAccessError.ENABLE, seg.id(), 0, () -> DirectViews.view(m));
            assertAccessError(CmiAccessError.ENABLE, seg.id(), 0, () -> m.getLong(0));
            v.set(LONG, 0, 9); // the view does not check cmi_enb on each access
        } finally {
            ctx.enable(true);
        }
        assertEquals(9, m.getLong(0));
    }

    @Test
    void shouldRefuseADirectViewOfAnExtensibleSegmentOrNullWithInval() {
        CmiMapping m = ctx.segAt(newSegment(4, SegFlag.EXTENSIBLE), Set.of());
        assertCmiError(CmiError.INVAL, () -> DirectViews.view(m));
        assertCmiError(CmiError.INVAL, () -> DirectViews.view(null));
    }
}
