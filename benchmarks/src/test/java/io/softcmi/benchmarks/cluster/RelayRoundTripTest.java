package io.softcmi.benchmarks.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The raw relay ring returns every message with the bytes sent (RelayRoundTrip checks each reply
 * and throws on a difference), polling and blocking, and leaves no relay process behind.
 */
class RelayRoundTripTest {
    @Test
    @Timeout(120)
    void shouldReturnTheBytesSentAroundTheRingAndLeaveNoProcess() throws Exception {
        Set<Long> before = RawJacobiFloorTest.children();
        // Each mode, each ring length and each size once (every ring starts its own JVMs).
        int[][] rings = {{4, 4, 1}, {4, 1000, 0}, {2, 1000, 1}}; // hops, bytes, polling
        for (int[] ring : rings) {
            // Four spinning processes on a small machine may hit the time budget: fewer, never none.
            long[] t = RelayRoundTrip.roundTrips(50, ring[1], ring[0], ring[2] == 1);
            assertTrue(t.length >= 1 && t.length <= 50, "round trips timed: " + t.length);
            assertTrue(t[0] > 0 && t[0] <= t[t.length - 1], "sorted, positive round-trip times");
        }
        assertEquals(before, RawJacobiFloorTest.children(), "every relay process has ended");
    }

    @Test
    void shouldRefuseMessagesTooSmallForTheirSequenceNumberAndRingsOfOneHop() {
        assertThrows(IllegalArgumentException.class, () -> RelayRoundTrip.roundTrips(10, 3, 4, true));
        assertThrows(IllegalArgumentException.class, () -> RelayRoundTrip.roundTrips(10, 4, 1, true));
    }
}
