package io.softcmi.smi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.softcmi.smi.SmiError;
import io.softcmi.smi.SmiException;
import java.util.List;
import org.junit.jupiter.api.Test;

class SplitTest {
    private static final long P = 4096;

    private static long[] sizes(List<Split.Spec> specs) {
        return specs.stream().mapToLong(Split.Spec::size).toArray();
    }

    @Test
    void shouldRoundBlockedRegionUpToPagesAndCutAtNearestPageBoundary() {
        // 5 pages + 100 bytes -> 6 pages over 4 processes: ideal cuts at 1.5, 3, 4.5 pages -> 2, 3, 5.
        List<Split.Spec> s = Split.blocked(5 * P + 100, 4, P);
        assertEquals(List.of(0L, 2 * P, 3 * P, 5 * P), s.stream().map(Split.Spec::start).toList());
        org.junit.jupiter.api.Assertions.assertArrayEquals(new long[] {2 * P, P, 2 * P, P}, sizes(s));
        assertEquals(List.of(0, 1, 2, 3), s.stream().map(Split.Spec::owner).toList());
    }

    @Test
    void shouldSplitEvenlyWhenPagesDivide() {
        org.junit.jupiter.api.Assertions.assertArrayEquals(new long[] {2 * P, 2 * P, 2 * P}, sizes(Split.blocked(6 * P, 3, P)));
    }

    @Test
    void shouldLeaveSomeProcessesWithoutPagesWhenRegionIsSmallerThanOnePagePerProcess() {
        List<Split.Spec> s = Split.blocked(P, 3, P);
        assertEquals(P, s.stream().mapToLong(Split.Spec::size).sum());
        assertEquals(2, s.stream().filter(x -> x.size() == 0).count());
    }

    @Test
    void shouldDealCyclicSegmentsRoundRobin() {
        List<Split.Spec> s = Split.cyclic(8 * P, 8, 3, P);
        assertEquals(List.of(0, 1, 2, 0, 1, 2, 0, 1), s.stream().map(Split.Spec::owner).toList());
        assertThrows(SmiException.class, () -> Split.cyclic(8 * P, 0, 3, P));
    }

    @Test
    void shouldRejectCustomizedSizesThatDoNotAddUp() {
        SmiException e = assertThrows(SmiException.class,
            () -> Split.customized(4 * P, new int[] {0, 1}, new long[] {P, P}, 2, P));
        assertEquals(SmiError.PARAM, e.error());
        List<Split.Spec> ok = Split.customized(3 * P, new int[] {1, 0}, new long[] {100, 2 * P}, 2, P);
        assertEquals(List.of(1, 0), ok.stream().map(Split.Spec::owner).toList());
        assertEquals(P, ok.get(1).start());
    }

    @Test
    void shouldRejectCustomizedWithMoreSegmentsThanProcessesOrBadOwner() {
        assertEquals(SmiError.PARAM, assertThrows(SmiException.class,
            () -> Split.customized(3 * P, new int[] {0, 1, 0}, new long[] {P, P, P}, 2, P)).error());
        assertEquals(SmiError.PARAM, assertThrows(SmiException.class,
            () -> Split.customized(P, new int[] {5}, new long[] {P}, 2, P)).error());
    }

    @Test
    void shouldGiveEveryProcessAnEqualFragment() {
        List<Split.Spec> s = Split.fragmented(4 * P, 4, P);
        org.junit.jupiter.api.Assertions.assertArrayEquals(new long[] {P, P, P, P}, sizes(s));
    }

    @Test
    void shouldComputePageSizeAsCommonMultipleOfOsPageAndProtectionUnit() {
        assertEquals(4096, SysInfo.pageSize(4096));
        assertEquals(4096, SysInfo.pageSize(64));
        assertEquals(65536, SysInfo.pageSize(65536));
    }
}
