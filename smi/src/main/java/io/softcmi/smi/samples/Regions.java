package io.softcmi.smi.samples;

import io.softcmi.smi.RegionFlag;
import io.softcmi.smi.RegionInfo;
import io.softcmi.smi.RegionLayout;
import io.softcmi.smi.RegionType;
import io.softcmi.smi.Smi;
import io.softcmi.smi.SmiRegion;
import java.nio.ByteBuffer;
import java.util.Set;

/**
 * The SMI test {@code regions} (manual §14.4.2): creates a region of every implemented type, lets
 * each process write into the segments it owns, meets at a barrier and checks what every other
 * process wrote, then frees the region. Rank 0 prints one line per type and {@code regions: OK}.
 * <pre>
 *   bin/smirun -np 4 -nodes local:a local:a local:b local:b -- io.softcmi.smi.samples.Regions
 * </pre>
 */
public final class Regions {
    private Regions() {
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
            long page = smi.pageSize();
            check(smi, "UNDIVIDED", smi.createShreg(RegionType.UNDIVIDED, Smi.initReginfo(3 * page, 0), Set.of()));
            check(smi, "BLOCKED", smi.createShreg(RegionType.BLOCKED, Smi.initReginfo(5 * page + 100, 0), Set.of()));
            check(smi, "CYCLIC", smi.createShreg(RegionType.CYCLIC, Smi.initReginfo(2L * n * page, 0).nbrSgmts(2 * n),
                Set.of()));
            int[] owners = new int[n];
            long[] sizes = new long[n];
            for (int r = 0; r < n; r++) {
                owners[r] = n - 1 - r;
                sizes[r] = (r + 1) * page;
            }
            long total = page * n * (n + 1) / 2;
            check(smi, "CUSTOMIZED", smi.createShreg(RegionType.CUSTOMIZED,
                Smi.initReginfo(total, 0).nbrSgmts(n).sgmtOwner(owners).sgmtSize(sizes), Set.of()));
            check(smi, "FRAGMENTED", smi.createShreg(RegionType.FRAGMENTED, Smi.initReginfo(n * page, 0), Set.of()));
            SmiRegion delayed = smi.createShreg(RegionType.UNDIVIDED, Smi.initReginfo(page, n - 1),
                Set.of(RegionFlag.DELAYED));
            delayed.connect();
            check(smi, "UNDIVIDED|DELAYED", delayed);
            // SMP: one region per node; the processes of a node see each other's writes.
            SmiRegion smp = smi.createShreg(RegionType.SMP, Smi.initReginfo(page, 0), Set.of());
            smp.putLong(8L * smi.localProcRank(), 1000 + me);
            smi.barrier();
            for (int l = 0; l < smi.localProcSize(); l++) {
                expect(smp.getLong(8L * l), 1000 + smi.firstProcOnNode(smi.nodeRank()) + l, "SMP slot " + l);
            }
            smp.free();
            report(smi, "SMP: " + smi.nodeSize() + " node regions, " + smi.maxLocalProcSize() + " processes at most per node");
            // LOCAL and REMOTE: each process exports a LOCAL region; its right neighbour imports it.
            SmiRegion local = smi.createShreg(RegionType.LOCAL, Smi.initReginfo(page, me), Set.of());
            local.putLong(0, 7000 + me);
            byte[] id = ByteBuffer.allocate(8).putLong(local.sgmtId()).array();
            byte[] got = new byte[8];
            int right = (me + 1) % n;
            int left = (me + n - 1) % n;
            smi.isend(id, 8, right);
            smi.recv(got, 8, left);
            smi.sendWait(right);
            smi.barrier();
            SmiRegion remote = smi.createShreg(RegionType.REMOTE,
                Smi.initReginfo(0, left).sgmtId(ByteBuffer.wrap(got).getLong()), Set.of());
            expect(remote.getLong(0), 7000 + left, "REMOTE region of process " + left);
            remote.free();
            smi.barrier();
            local.free();
            report(smi, "LOCAL/REMOTE: every process read its left neighbour's LOCAL region");
            // PT2PT: pairs (0,1), (2,3), ...: the even rank owns, the odd one imports a window.
            if (me + 1 < n || me % 2 == 1) {
                int owner = me - me % 2;
                SmiRegion p2p = smi.createShreg(RegionType.PT2PT, Smi.initReginfo(me == owner ? 2 * page : page, owner)
                    .partner(owner + 1).offset(me == owner ? 0 : page), me == owner ? Set.of() : Set.of(RegionFlag.DELAYED));
                if (me == owner) {
                    p2p.putLong(page, 4242 + me);
                    smi.signalSend(owner + 1);
                } else {
                    smi.signalWait(owner);
                    p2p.connect();
                    expect(p2p.getLong(0), 4242 + owner, "PT2PT window of process " + owner);
                }
                p2p.free();
            }
            smi.barrier();
            report(smi, "PT2PT: pairs of processes shared a region (the partner a window of it)");
            // Dynamic memory: every process allocates from one region concurrently (a mutex inside),
            // then all free; afterwards the whole arena is one block again.
            SmiRegion heap = smi.createShreg(RegionType.UNDIVIDED, Smi.initReginfo(page + 65536, n - 1), Set.of());
            heap.initMmu();
            java.util.List<io.softcmi.smi.SmiAddress> blocks = new java.util.ArrayList<>();
            for (int i = 0; i < 10; i++) {
                io.softcmi.smi.SmiAddress a = heap.imalloc(200);
                heap.putLong(a.offset(), stamp(me, i));
                blocks.add(a);
            }
            io.softcmi.smi.SmiAddress common = heap.cmalloc(8L * n);
            heap.putLong(common.offset() + 8L * me, 500 + me);
            smi.barrier();
            for (int i = 0; i < 10; i++) {
                expect(heap.getLong(blocks.get(i).offset()), stamp(me, i), "imalloc block " + i);
            }
            for (int r = 0; r < n; r++) {
                expect(heap.getLong(common.offset() + 8L * r), 500 + r, "cmalloc slot " + r);
            }
            smi.barrier();
            blocks.forEach(heap::ifree);
            heap.cfree(common);
            if (me == 0) {
                heap.ifree(heap.imalloc(65536 - 16));
            }
            smi.barrier();
            heap.free();
            report(smi, "MMU: " + n + " x 10 imalloc blocks and one cmalloc block, all freed and coalesced");
            report(smi, "regions: OK");
        });
    }

    private static void check(Smi smi, String name, SmiRegion r) {
        int me = smi.procRank();
        RegionLayout layout = r.layout();
        // Each process stamps every 8-byte word of the segments it owns with (rank, offset).
        for (RegionLayout.Segment s : layout.segments()) {
            if (s.ownerRank() == me) {
                for (long o = s.offset(); o < s.offset() + s.size(); o += 512) {
                    r.putLong(o, stamp(me, o));
                }
            }
        }
        smi.barrier();
        for (RegionLayout.Segment s : layout.segments()) {
            for (long o = s.offset(); o < s.offset() + s.size(); o += 512) {
                expect(r.getLong(o), stamp(s.ownerRank(), o), name + " offset " + o);
            }
        }
        StringBuilder b = new StringBuilder();
        for (RegionLayout.Segment s : layout.segments()) {
            b.append(' ').append(s.ownerRank()).append('@').append(s.offset()).append('+').append(s.size());
        }
        smi.barrier();
        r.free();
        report(smi, name + ": " + layout.size() + " bytes in " + layout.nbrSgmts() + " segments (owner@offset+size):" + b);
    }

    private static long stamp(int rank, long offset) {
        return ((long) rank << 40) | offset;
    }

    private static void expect(long got, long want, String what) {
        if (got != want) {
            throw new IllegalStateException(what + ": read " + got + ", expected " + want);
        }
    }

    private static void report(Smi smi, String line) {
        if (smi.procRank() == 0) {
            System.out.println(line);
        }
    }
}
