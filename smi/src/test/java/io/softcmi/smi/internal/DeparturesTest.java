package io.softcmi.smi.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class DeparturesTest {
    private static long[] departed(int size, int... ranks) {
        long[] bits = new long[(size + 63) / 64];
        for (int r : ranks) {
            bits[r / 64] |= 1L << (r % 64);
        }
        return bits;
    }

    @Test
    void shouldGiveUpAWaitOnOnePartnerOnlyOnceThatPartnerDeparted() {
        assertFalse(Departures.hopeless(departed(4), 2, 0, 4));
        assertFalse(Departures.hopeless(departed(4, 1, 3), 2, 0, 4));
        assertTrue(Departures.hopeless(departed(4, 2), 2, 0, 4));
        // Ranks past the first word of the bitmap.
        assertTrue(Departures.hopeless(departed(256, 255), 255, 0, 256));
        assertFalse(Departures.hopeless(departed(256, 191), 255, 0, 256));
        assertTrue(Departures.hopeless(departed(256, 64), 64, 0, 256));
    }

    @Test
    void shouldGiveUpAWaitOnAnyPartnerOnlyOnceEveryOtherProcessDeparted() {
        assertFalse(Departures.hopeless(departed(3, 1), Departures.ANY, 0, 3));
        assertTrue(Departures.hopeless(departed(3, 1, 2), Departures.ANY, 0, 3));
        // This process's own bit (it is finalizing on another thread) does not count either way.
        assertTrue(Departures.hopeless(departed(3, 0, 1, 2), Departures.ANY, 0, 3));
        assertFalse(Departures.hopeless(departed(3, 0, 2), Departures.ANY, 0, 3));
        assertTrue(Departures.hopeless(departed(130, java.util.stream.IntStream.range(1, 130).toArray()), Departures.ANY, 0, 130));
        // A process alone has nobody to wait for, but nobody left either: its own threads may post.
        assertFalse(Departures.hopeless(departed(1, 0), Departures.ANY, 0, 1));
    }

    @Test
    void shouldNeverGiveUpAWaitOnItselfOrOnNoParticularPartner() {
        assertFalse(Departures.hopeless(departed(2, 0, 1), 0, 0, 2));
        assertFalse(Departures.hopeless(departed(2, 0, 1), Departures.NONE, 0, 2));
    }

    @Test
    void shouldKeepTheBitmapInsideTheBootstrapsFreeWords() {
        assertTrue(Layout.BOOT_FINALIZING >= Layout.BOOT_ABORT + 8);
        assertTrue(Layout.BOOT_FINALIZING + Layout.MAX_PROCS / 8 <= Layout.BOOT_HEARTBEAT);
    }
}
