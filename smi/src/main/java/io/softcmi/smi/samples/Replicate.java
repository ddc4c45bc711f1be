package io.softcmi.smi.samples;

import io.softcmi.smi.LoopMode;
import io.softcmi.smi.RegionLayout;
import io.softcmi.smi.RegionType;
import io.softcmi.smi.Smi;
import io.softcmi.smi.SmiLoop;
import io.softcmi.smi.SmiRegion;
import java.util.Set;

/**
 * The SMI test {@code replicate} (manual §14.4.4): a {@code BLOCKED} region switched to
 * replication and back with every combine mode (single source, every local, sum of {@code long}
 * and {@code double} arrays), {@code Ensure_consistency}, and {@code LOCAL_AND_BEYOND}
 * replication along a scheduled loop. Rank 0 prints one line per step and {@code replicate: OK}.
 * <pre>
 *   bin/smirun -np 4 -nodes local:a local:a local:b local:b -- io.softcmi.smi.samples.Replicate
 * </pre>
 */
public final class Replicate {
    private static final int M = 4096;

    private Replicate() {
    }

    /**
     * Runs the sample.
     *
     * @param args none
     */
    public static void main(String[] args) {
        SampleMain.run(args, smi -> {
            int n = smi.procSize();
            int me = smi.procRank();
            SmiRegion r = smi.createShreg(RegionType.BLOCKED, Smi.initReginfo(8L * M, 0), Set.of());
            for (RegionLayout.Segment s : r.layout().segments()) {
                if (s.ownerRank() == me) {
                    for (long o = s.offset(); o < s.offset() + s.size(); o += 8) {
                        r.putLong(o, o);
                    }
                }
            }
            smi.barrier();
            // EVERYTHING + SINGLE_SOURCE: every copy starts as the shared data; rank n-1's changes win.
            smi.switchToReplication(r, Smi.REP_EVERYTHING, 0, 0, 0);
            check(r.getLong(8L * (M - 1)) == 8L * (M - 1), "replica holds the shared data");
            r.putLong(0, 1000 + me);
            smi.switchToSharing(r, Smi.SHR_SINGLE_SOURCE, n - 1, 0);
            check(r.getLong(0) == 1000 + n - 1, "SINGLE_SOURCE: rank " + (n - 1) + "'s copy won, read " + r.getLong(0));
            report(smi, "replicate: EVERYTHING / SINGLE_SOURCE");
            // EVERY_LOCAL: each process writes its rank everywhere in its copy; each segment keeps its owner's.
            smi.switchToReplication(r, Smi.REP_NOTHING | Smi.REP_ONE_PER_NODE, 0, 0, 0);
            for (long o = 0; o < r.size(); o += 8) {
                r.putLong(o, me);
            }
            smi.switchToSharing(r, Smi.SHR_EVERY_LOCAL, 0, 0);
            for (RegionLayout.Segment s : r.layout().segments()) {
                check(r.getLong(s.offset()) == s.ownerRank(), "EVERY_LOCAL: segment at " + s.offset());
            }
            report(smi, "replicate: NOTHING / EVERY_LOCAL");
            // ADD: sums of long and double arrays.
            smi.switchToReplication(r, Smi.REP_NOTHING, 0, 0, 0);
            for (int i = 0; i < 100; i++) {
                r.putLong(8L * i, (me + 1) * (long) i);
            }
            smi.ensureConsistency(r, Smi.SHR_ADD | Smi.DTYPE_FIXPOINT | Smi.DTYPE_HIGHPRECISION, 100, 0);
            long tri = (long) n * (n + 1) / 2;
            check(r.getLong(8L * 99) == tri * 99, "ADD (long) in the refreshed copy: " + r.getLong(8L * 99));
            for (int i = 0; i < 100; i++) {
                r.putDouble(8L * i, 0.5 * (me + 1));
            }
            smi.switchToSharing(r, Smi.SHR_ADD | Smi.DTYPE_FLOATINGPOINT | Smi.DTYPE_HIGHPRECISION | Smi.SHR_SPARSE, 100, 0);
            check(r.getDouble(8L * 50) == 0.5 * tri, "ADD (double): " + r.getDouble(8L * 50));
            report(smi, "replicate: ADD of long and double arrays over " + n + " processes");
            // LOCAL_AND_BEYOND: copy only this process's share of a scheduled loop, plus 2 neighbours.
            smi.barrier();
            for (long o = 0; o < r.size(); o += 8) {
                if (me == 0) {
                    r.putLong(o, 7);
                }
            }
            smi.barrier();
            SmiLoop loop = smi.loopInit(0, M - 1, LoopMode.BLOCKED);
            smi.switchToReplication(r, Smi.REP_LOCAL_AND_BEYOND, M, 0, 2);
            long copied = 0;
            for (long o = 0; o < r.size(); o += 8) {
                copied += r.getLong(o) == 7 ? 1 : 0;
            }
            long expect = M / n + (me > 0 ? 2 : 0) + (me < n - 1 ? 2 : 0);
            check(copied == expect, "LOCAL_AND_BEYOND copied " + copied + " elements, expected " + expect);
            smi.switchToSharing(r, Smi.SHR_NOTHING, 0, 0);
            loop.free();
            report(smi, "replicate: LOCAL_AND_BEYOND copied the own share and 2 neighbours on each side");
            r.free();
            report(smi, "replicate: OK");
        });
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException(what);
        }
    }

    private static void report(Smi smi, String line) {
        if (smi.procRank() == 0) {
            System.out.println(line);
        }
    }
}
