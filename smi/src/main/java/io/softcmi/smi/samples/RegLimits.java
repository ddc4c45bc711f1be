package io.softcmi.smi.samples;

import io.softcmi.smi.RegionType;
import io.softcmi.smi.Smi;
import io.softcmi.smi.SmiError;
import io.softcmi.smi.SmiException;
import io.softcmi.smi.SmiRegion;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The SMI test {@code reglimits} (manual §14.4.3): how many regions, and how large a region, this
 * job can create. Every process creates {@code LOCAL} regions of one page until
 * {@code SMI_ERR_NOSEGMENT} (or a cap), then the processes agree on the largest {@code BLOCKED}
 * region by doubling its size until {@code SMI_ERR_NOMEM} (or a cap). Rank 0 prints what it found
 * and {@code reglimits: OK}.
 * <pre>
 *   bin/smirun -np 2 -nodes local:a local:b -- io.softcmi.smi.samples.RegLimits [maxRegions] [maxBytes]
 * </pre>
 */
public final class RegLimits {
    private RegLimits() {
    }

    /**
     * Runs the sample.
     *
     * @param args {@code [maxRegions] [maxBytes]} caps (defaults 2000 and 256 MiB)
     */
    public static void main(String[] args) {
        int maxRegions = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        long maxBytes = args.length > 1 ? Long.parseLong(args[1]) : 256L << 20;
        SampleMain.run(args, smi -> {
            List<SmiRegion> made = new ArrayList<>();
            String stop = "cap of " + maxRegions;
            while (made.size() < maxRegions) {
                try {
                    made.add(smi.createShreg(RegionType.LOCAL, Smi.initReginfo(smi.pageSize(), smi.procRank()), Set.of()));
                } catch (SmiException e) {
                    if (e.error() != SmiError.NOSEGMENT && e.error() != SmiError.NOMEM) {
                        throw e;
                    }
                    stop = e.error().specName();
                    break;
                }
            }
            int count = made.size();
            made.forEach(SmiRegion::free);
            smi.barrier();
            if (smi.procRank() == 0) {
                System.out.println("reglimits: " + count + " LOCAL regions per process (stopped by " + stop + ")");
            }
            long size = smi.pageSize() * (long) smi.procSize();
            long largest = 0;
            while (size <= maxBytes) {
                try {
                    SmiRegion r = smi.createShreg(RegionType.BLOCKED, Smi.initReginfo(size, 0), Set.of());
                    r.putLong(r.size() - 8, 1);
                    smi.barrier();
                    r.free();
                    largest = size;
                    size *= 2;
                } catch (SmiException e) {
                    if (e.error() != SmiError.NOMEM && e.error() != SmiError.NOSEGMENT) {
                        throw e;
                    }
                    break;
                }
            }
            if (smi.procRank() == 0) {
                System.out.println("reglimits: largest BLOCKED region " + largest + " bytes (cap " + maxBytes + ")");
                System.out.println("reglimits: OK");
            }
        });
    }
}
