package io.softcmi.node;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** Per-peer and per-segment traffic: buckets, their bounds as Prometheus writes them, the table's bound. */
class TrafficTest {
    @Test
    void bucketsFollowTheOneTwoThreeFiveSevenSteps() {
        assertEquals(35, Traffic.BOUNDS_NANOS.length);
        assertEquals(1_000, Traffic.BOUNDS_NANOS[0]);
        assertEquals(7_000_000_000L, Traffic.BOUNDS_NANOS[34]);
        assertEquals(0, Traffic.bucket(0));
        assertEquals(0, Traffic.bucket(1_000), "a bound belongs to its own bucket (le)");
        assertEquals(1, Traffic.bucket(1_001));
        assertEquals(4, Traffic.bucket(6_500));
        assertEquals(35, Traffic.bucket(8_000_000_000L), "above the last bound");
        assertEquals("0.000001", Traffic.le(0));
        assertEquals("0.000007", Traffic.le(4));
        assertEquals("7", Traffic.le(34));
    }

    @Test
    void recordsRequestsBytesRefusalsAndTime() {
        Traffic t = new Traffic();
        t.record(64, 0, false, 4_000);
        t.record(0, 8, true, 12_000);
        assertEquals(2, t.requests.sum());
        assertEquals(64, t.bytesRead.sum());
        assertEquals(8, t.bytesWritten.sum());
        assertEquals(1, t.refused.sum());
        assertEquals(16_000, t.serviceNanos.sum());
        long[] c = t.bucketCounts();
        assertEquals(1, c[3]); // (3, 5] us
        assertEquals(1, c[6]); // (10, 20] us
        assertArrayEquals(new long[0], java.util.Arrays.stream(c).filter(x -> x > 1).toArray());
    }

    @Test
    void theTableStopsTrackingNewKeysWhenFullAndDropsWhatItIsToldTo() {
        Traffic.Table<Long> table = new Traffic.Table<>(2);
        Traffic one = table.of(1L);
        assertEquals(one, table.of(1L));
        table.of(2L);
        assertNull(table.of(3L), "full");
        table.retain(k -> k != 1L);
        assertEquals(1, table.entries().size());
        org.junit.jupiter.api.Assertions.assertNotNull(table.of(3L), "room again");
    }
}
