package io.softcmi.node;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class FluxRangesTest {
    @Test
    void shouldKeepRangesSortedAndMergeThoseThatTouchOrOverlap() {
        FluxRanges f = new FluxRanges();
        f.add(8192, 9216);
        f.add(0, 1024);
        f.add(4096, 5120);
        assertArrayEquals(new long[] {0, 1024, 4096, 5120, 8192, 9216}, f.snapshot());
        f.add(1024, 2048); // touches the first
        f.add(4608, 8704); // overlaps the second and the third
        assertArrayEquals(new long[] {0, 2048, 4096, 9216}, f.snapshot());
        f.add(100, 50); // empty: ignored
        assertArrayEquals(new long[] {0, 2048, 4096, 9216}, f.snapshot());
    }

    @Test
    void shouldLeaveWhatARemovalDoesNotCoverAndAnswerTheLowestPart() {
        FluxRanges f = new FluxRanges();
        f.add(0, 4096);
        f.remove(1024, 2048);
        assertArrayEquals(new long[] {0, 1024, 2048, 4096}, f.snapshot());
        assertArrayEquals(new long[] {2048, 3072}, f.lowest(1500, 3072));
        assertNull(f.lowest(1024, 2048));
        assertTrue(FluxRanges.touches(f.snapshot(), 1023, 1));
        f.remove(0, 65536);
        assertTrue(f.isEmpty());
    }

    @Test
    void shouldNeverChangeASnapshotReadersHold() {
        FluxRanges f = new FluxRanges();
        f.add(0, 1024);
        long[] held = f.snapshot();
        assertSame(held, f.snapshot());
        f.add(2048, 4096);
        f.remove(0, 512);
        assertArrayEquals(new long[] {0, 1024}, held);
    }
}
