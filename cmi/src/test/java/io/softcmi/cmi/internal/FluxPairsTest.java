package io.softcmi.cmi.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import org.junit.jupiter.api.Test;

class FluxPairsTest {
    @Test
    void shouldRemoveAWholeRange() {
        assertArrayEquals(new long[0], FluxPairs.without(new long[] {0, 1024}, 0, 65536));
        assertArrayEquals(new long[] {4096, 8192}, FluxPairs.without(new long[] {0, 1024, 4096, 8192}, 0, 1024));
    }

    @Test
    void shouldCutOverlappingRangesAndSplitAContainingOne() {
        assertArrayEquals(new long[] {0, 512}, FluxPairs.without(new long[] {0, 1024}, 512, 2048));
        assertArrayEquals(new long[] {1536, 2048}, FluxPairs.without(new long[] {1024, 2048}, 0, 1536));
        assertArrayEquals(new long[] {0, 1024, 2048, 4096}, FluxPairs.without(new long[] {0, 4096}, 1024, 2048));
    }

    @Test
    void shouldKeepRangesOutsideTheRecoveredOne() {
        long[] pairs = {0, 1024, 8192, 9216};
        assertArrayEquals(pairs, FluxPairs.without(pairs, 1024, 8192));
    }
}
