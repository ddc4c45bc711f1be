package io.softcmi.smi.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
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
            BitSet[] heard = eachKnowingItself(n);
            for (int round = 0; round < Dissemination.rounds(n); round++) {
                BitSet[] next = copy(heard);
                for (int r = 0; r < n; r++) {
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

    @Test
    void shouldInterleaveTheRanksOfEachNode() {
        assertArrayEquals(new int[] {0, 2, 1, 3}, Dissemination.order(new int[] {0, 0, 1, 1}));
        assertArrayEquals(new int[] {0, 3, 1, 4, 2}, Dissemination.order(new int[] {0, 0, 0, 1, 1}));
        assertArrayEquals(new int[] {0, 1, 2}, Dissemination.order(new int[] {0, 1, 2}));
        assertArrayEquals(new int[] {0}, Dissemination.order(new int[] {0}));
    }

    @Test
    void shouldCrossBetweenTwoEqualNodesInTheFirstRoundOnly() {
        for (int perNode = 1; perNode <= 8; perNode++) {
            int[] procNode = grouped(perNode, perNode);
            for (int r = 0; r < procNode.length; r++) {
                int[] targets = Dissemination.targets(r, procNode);
                assertEquals(Dissemination.rounds(procNode.length), targets.length);
                assertTrue(procNode[targets[0]] != procNode[r], "first round crosses, " + perNode + " per node, rank " + r);
                for (int round = 1; round < targets.length; round++) {
                    assertEquals(procNode[r], procNode[targets[round]], perNode + " per node, rank " + r + " round " + round);
                }
            }
        }
    }

    @Test
    void shouldLetEveryProcessHearFromEveryOtherWhateverTheNodes() {
        for (int a = 1; a <= 9; a++) {
            for (int b = 0; b <= 9; b++) {
                for (int c = 0; c <= 3; c++) {
                    int[] procNode = grouped(a, b, c);
                    int n = procNode.length;
                    int[][] targets = new int[n][];
                    for (int r = 0; r < n; r++) {
                        targets[r] = Dissemination.targets(r, procNode);
                    }
                    BitSet[] heard = eachKnowingItself(n);
                    for (int round = 0; round < Dissemination.rounds(n); round++) {
                        BitSet[] next = copy(heard);
                        int[] posts = new int[n];
                        for (int r = 0; r < n; r++) {
                            next[targets[r][round]].or(heard[r]);
                            posts[targets[r][round]]++;
                        }
                        for (int r = 0; r < n; r++) {
                            assertEquals(1, posts[r], "each process gets one post per round: " + java.util.Arrays.toString(procNode));
                        }
                        heard = next;
                    }
                    for (int r = 0; r < n; r++) {
                        assertEquals(n, heard[r].cardinality(), java.util.Arrays.toString(procNode) + " rank " + r);
                    }
                }
            }
        }
    }

    private static BitSet[] eachKnowingItself(int n) {
        BitSet[] heard = new BitSet[n];
        for (int r = 0; r < n; r++) {
            heard[r] = new BitSet();
            heard[r].set(r);
        }
        return heard;
    }

    private static BitSet[] copy(BitSet[] sets) {
        BitSet[] copy = new BitSet[sets.length];
        for (int r = 0; r < sets.length; r++) {
            copy[r] = (BitSet) sets[r].clone();
        }
        return copy;
    }

    /** @return the node of each rank for nodes of the given sizes (empty nodes skipped), ranks grouped by node */
    private static int[] grouped(int... sizes) {
        int n = 0;
        for (int s : sizes) {
            n += s;
        }
        int[] procNode = new int[n];
        int r = 0;
        int node = 0;
        for (int s : sizes) {
            if (s == 0) {
                continue;
            }
            for (int i = 0; i < s; i++) {
                procNode[r++] = node;
            }
            node++;
        }
        return procNode;
    }
}
