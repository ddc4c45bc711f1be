package io.softcmi.benchmarks.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class RoundRatiosTest {
    @Test
    void shouldTakeTheMiddleRoundOfAnOddCount() {
        RoundRatios r = new RoundRatios("ops/s");
        for (double v : new double[] {1.2, 0.7, 0.9}) {
            r.add(v);
        }
        assertEquals(0.9, r.median(), 1e-12);
        assertEquals("ops/s: median 0.90 over 3 rounds (range 0.70-1.20; rounds 1.20 0.70 0.90)", r.summary());
    }

    @Test
    void shouldAverageTheMiddleTwoOfAnEvenCount() {
        RoundRatios r = new RoundRatios("p99");
        for (double v : new double[] {2.0, 1.0, 4.0, 3.0}) {
            r.add(v);
        }
        assertEquals(2.5, r.median(), 1e-12);
    }

    @Test
    void shouldTakeARoundsCountOfAtLeastOne() {
        assertEquals(5, RoundRatios.count("5"));
        assertThrows(IllegalArgumentException.class, () -> RoundRatios.count("0"));
        assertThrows(IllegalArgumentException.class, () -> RoundRatios.count("five"));
    }

    @Test
    void shouldRefuseAMedianOfNothing() {
        assertThrows(IllegalStateException.class, () -> new RoundRatios("none").median());
    }
}
