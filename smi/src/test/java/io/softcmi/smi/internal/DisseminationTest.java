package io.softcmi.smi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.BitSet;
import org.junit.jupiter.api.Test;

class DisseminationTest {
    @Test
    void shouldNeedCeilLog2RoundsWithinTheControlSegmentsWords() {
        assertEquals(0, Dissemination.rounds(1));
        assertEquals(1, Dissemination.rounds(2));
        assertEquals(2, Dissemination.rounds(3));
        assertEquals(2, Dissemination.rounds(4));
        assertEquals(3, Dissemination.rounds(5));
        assertEquals(Layout.BARRIER_ROUNDS, Dissemination.rounds(Layout.MAX_PROCS));
        assertTrue(Layout.CTRL_BARRIER_ROUND + 8L * Layout.BARRIER_ROUNDS <= Layout.CTRL_SLEEPERS);
    }

    @Test
    void shouldPairEveryPostWithTheWaitOfItsTarget() {
        for (int n = 1; n <= 40; n++) {
            for (int round = 0; round < Dissemination.rounds(n); round++) {
                for (int r = 0; r < n; r++) {
                    int to = Dissemination.to(r, n, round);
                    assertEquals(r, Dissemination.from(to, n, round), "n=" + n + " round " + round + " rank " + r);
                }
            }
        }
    }

    @Test
    void shouldLetEveryProcessHearFromEveryOtherAfterTheLastRound() {
        for (int n = 1; n <= 70; n++) {
            // heard[r]: the processes whose arrival r knows of (itself first).
            BitSet[] heard = new BitSet[n];
            for (int r = 0; r < n; r++) {
                heard[r] = new BitSet();
                heard[r].set(r);
            }
            for (int round = 0; round < Dissemination.rounds(n); round++) {
                BitSet[] next = new BitSet[n];
                for (int r = 0; r < n; r++) {
                    next[r] = (BitSet) heard[r].clone();
                    // What r's poster knew when it posted in this round.
                    next[r].or(heard[Dissemination.from(r, n, round)]);
                }
                heard = next;
            }
            for (int r = 0; r < n; r++) {
                assertEquals(n, heard[r].cardinality(), "n=" + n + " rank " + r);
            }
        }
    }
}
