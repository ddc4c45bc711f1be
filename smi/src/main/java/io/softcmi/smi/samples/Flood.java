package io.softcmi.smi.samples;

import io.softcmi.smi.RegionLayout;
import io.softcmi.smi.RegionType;
import io.softcmi.smi.Smi;
import io.softcmi.smi.SmiRegion;
import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * The SMI example {@code flood} (manual §14.1): every process floods the segment of its right
 * neighbour in a {@code BLOCKED} region with writes of one block at a time for a number of
 * rounds, all at once, then checks what its left neighbour wrote into its own segment. Rank 0
 * prints the aggregate write rate and {@code flood: OK}.
 * <pre>
 *   bin/smirun -np 4 -nodes local:a local:a local:b local:b -- io.softcmi.smi.samples.Flood [rounds] [block]
 * </pre>
 */
public final class Flood {
    private Flood() {
    }

    /**
     * Runs the sample.
     *
     * @param args {@code [rounds] [block]} (defaults 2000 rounds of 4096 bytes)
     */
    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        int block = args.length > 1 ? Integer.parseInt(args[1]) : 4096;
        SampleMain.run(args, smi -> {
            int n = smi.procSize();
            int me = smi.procRank();
            SmiRegion r = smi.createShreg(RegionType.BLOCKED, Smi.initReginfo((long) n * 16 * block, 0), Set.of());
            RegionLayout.Segment right = r.layout().segments().get((me + 1) % n);
            RegionLayout.Segment mine = r.layout().segments().get(me);
            byte[] data = new byte[block];
            java.util.Arrays.fill(data, (byte) (me + 1));
            MemorySegment src = MemorySegment.ofArray(data);
            long slots = right.size() / block;
            smi.barrier();
            double t0 = smi.wtime();
            for (int i = 0; i < rounds; i++) {
                r.put(right.offset() + (i % slots) * block, src);
            }
            smi.barrier();
            double secs = smi.wtime() - t0;
            byte want = (byte) ((me + n - 1) % n + 1);
            byte[] got = new byte[block];
            for (long s = 0; s < Math.min(slots, rounds); s++) {
                r.get(mine.offset() + s * block, got, 0, block);
                for (byte b : got) {
                    if (b != want) {
                        throw new IllegalStateException("slot " + s + " holds " + b + ", expected " + want);
                    }
                }
            }
            if (me == 0) {
                System.out.printf("flood: %d processes wrote %d x %d bytes each into their neighbour in %.3f s:"
                    + " %.1f MiB/s together%n", n, rounds, block, secs, (double) n * rounds * block / secs / (1 << 20));
            }
            smi.barrier();
            r.free();
            if (me == 0) {
                System.out.println("flood: OK");
            }
        });
    }
}
