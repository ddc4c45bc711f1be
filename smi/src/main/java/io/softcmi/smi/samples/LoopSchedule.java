package io.softcmi.smi.samples;

import io.softcmi.smi.Iterations;
import io.softcmi.smi.LoopMode;
import io.softcmi.smi.LoopStatus;
import io.softcmi.smi.RegionType;
import io.softcmi.smi.Smi;
import io.softcmi.smi.SmiLoop;
import io.softcmi.smi.SmiRegion;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Set;

/**
 * Loop scheduling (manual §13) with every partition policy: three runs of a loop of M iterations
 * per policy, rank 0 made slow (it sleeps in its first chunks) so that the others take iterations
 * from it. After each run the processes publish which iterations they executed in a
 * {@code FRAGMENTED} region and rank 0 checks that each was executed exactly once. Rank 0 prints
 * one line per run and {@code loops: OK}.
 * <pre>
 *   bin/smirun -np 4 -nodes local:a local:a local:b local:b -- io.softcmi.smi.samples.LoopSchedule [M]
 * </pre>
 */
public final class LoopSchedule {
    private LoopSchedule() {
    }

    /**
     * Runs the sample.
     *
     * @param args {@code [M]} iterations (default 2000)
     */
    public static void main(String[] args) {
        int m = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        SampleMain.run(args, smi -> {
            int n = smi.procSize();
            int me = smi.procRank();
            double[] speed = smi.evaluateSpeed();
            report(smi, "loops: evaluated speeds " + Arrays.toString(Arrays.stream(speed).map(s -> Math.round(s * 100) / 100.0)
                .toArray()));
            long frag = m + 8L;
            SmiRegion seen = smi.createShreg(RegionType.FRAGMENTED, Smi.initReginfo(frag * n, 0), Set.of());
            SmiRegion mine = seen.fragment(me);
            for (LoopMode mode : LoopMode.values()) {
                SmiLoop loop = smi.loopInit(-m / 2, m - m / 2 - 1, mode);
                if (mode == LoopMode.BLOCKED) {
                    loop.useEvaluatedSpeed();
                    loop.setParam(SmiLoop.NO_CHANGE, 2, 1, 500, SmiLoop.NO_CHANGE);
                }
                for (int run = 1; run <= 3; run++) {
                    byte[] did = new byte[m];
                    int remote = 0;
                    int chunks = 0;
                    Iterations it;
                    do {
                        it = loop.getIterations();
                        if (it.status() == LoopStatus.REMOTE) {
                            remote++;
                        }
                        int step = mode == LoopMode.CYCLIC ? n : 1;
                        for (int i = it.low(); i <= it.high(); i += step) {
                            did[i + m / 2]++;
                        }
                        if (me == 0 && n > 1 && chunks++ < 3 && it.status() != LoopStatus.READY) {
                            sleep(30);
                        }
                    } while (it.status() != LoopStatus.READY);
                    mine.put(0, MemorySegment.ofArray(did));
                    mine.putInt(m, remote);
                    smi.barrier();
                    if (me == 0) {
                        int[] count = new int[m];
                        int remoteChunks = 0;
                        byte[] buf = new byte[m];
                        int[] perRank = new int[n];
                        for (int r = 0; r < n; r++) {
                            SmiRegion f = seen.fragment(r);
                            f.get(0, MemorySegment.ofArray(buf));
                            for (int i = 0; i < m; i++) {
                                count[i] += buf[i];
                                perRank[r] += buf[i];
                            }
                            remoteChunks += f.getInt(m);
                        }
                        for (int i = 0; i < m; i++) {
                            if (count[i] != 1) {
                                throw new IllegalStateException(mode + " run " + run + ": iteration " + (i - m / 2)
                                    + " executed " + count[i] + " times");
                            }
                        }
                        System.out.println("loops: " + mode + " run " + run + ": " + m + " iterations each once; per rank "
                            + Arrays.toString(perRank) + ", " + remoteChunks + " chunks taken from other ranks");
                    }
                    smi.barrier();
                }
                loop.free();
            }
            seen.free();
            report(smi, "loops: OK");
        });
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void report(Smi smi, String line) {
        if (smi.procRank() == 0) {
            System.out.println(line);
        }
    }
}
