package io.softcmi.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class StillnessWatchTest {
    private static final long MS = 1_000_000;

    @Test
    void shouldSeeNoPauseWhileLooksComeWithinTheTolerance() {
        StillnessWatch w = new StillnessWatch(375 * MS, 0);
        long now = 0;
        for (int i = 0; i < 100; i++) {
            now += 125 * MS;
            assertEquals(0, w.look(now), "look " + i);
        }
        assertEquals(0, w.look(now + 375 * MS), "exactly the tolerance is normal");
    }

    @Test
    void shouldReportHowLongItStoodStillPastTheTolerance() {
        StillnessWatch w = new StillnessWatch(375 * MS, 1_000 * MS);
        assertEquals(0, w.look(1_125 * MS));
        assertEquals(1_500 * MS, w.look(3_000 * MS), "stopped from 1125 ms to 3000 ms");
        assertEquals(0, w.look(3_001 * MS), "the pause is reported once");
    }

    @Test
    void shouldReportAPauseBetweenLooksOfOneRoundAsWell() {
        // A pause inside a round (between judging two peers) is seen by the next look, not only
        // one that falls in the sleep between rounds.
        StillnessWatch w = new StillnessWatch(375 * MS, 0);
        assertEquals(0, w.look(125 * MS));
        assertEquals(0, w.look(125 * MS + 10_000));
        assertEquals(625 * MS - 10_000, w.look(1_125 * MS));
    }

    @Test
    void shouldRefuseANonPositiveTolerance() {
        assertThrows(IllegalArgumentException.class, () -> new StillnessWatch(0, 0));
    }
}
