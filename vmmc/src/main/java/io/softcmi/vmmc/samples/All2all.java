package io.softcmi.vmmc.samples;

import io.softcmi.vmmc.Vmmc;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * The manual's {@code all2all method numberofnodes numberofwords numberofiterations}
 * ({@code method} = {@code pairwise} or {@code random}): at each iteration every process sends
 * {@code numberofwords} words to every other process, in pairwise order ({@code rank + k}) or a
 * random order; prints the aggregate bandwidth. Process {@code r} writes into slot {@code r} of
 * each receiver's buffer, with a notification per message.
 */
public final class All2all {
    private All2all() {
    }

    /**
     * Runs the sample.
     *
     * @param args {@code method numberofnodes numberofwords numberofiterations}
     */
    public static void main(String[] args) {
        boolean random = switch (args[0]) {
            case "pairwise" -> false;
            case "random" -> true;
            default -> throw new IllegalArgumentException("method must be pairwise or random: " + args[0]);
        };
        int n = Integer.parseInt(args[1]);
        long nwords = Long.parseLong(args[2]);
        int iters = Integer.parseInt(args[3]);
        int peer = Peers.peerIndex(args);
        try (Vmmc v = Vmmc.init()) {
            Peers p = peer < 0 ? Peers.master(v, n, All2all.class, Arrays.copyOf(args, 4), n * nwords)
                : Peers.peer(v, Integer.parseInt(args[peer + 1]), n, n * nwords);
            MemorySegment src = v.allocate(nwords);
            Random rnd = new Random(p.rank);
            List<Integer> order = new ArrayList<>();
            long t0 = System.nanoTime();
            for (int i = 0; i < iters; i++) {
                order.clear();
                for (int k = 1; k < n; k++) {
                    order.add((p.rank + k) % n);
                }
                if (random) {
                    Collections.shuffle(order, rnd);
                }
                for (int dest : order) {
                    v.sendDataNotify(src, p.proxy(dest) + (long) p.rank * nwords * Vmmc.WORD, nwords);
                }
            }
            p.await((n - 1) * iters);
            if (p.rank != 0) {
                v.sendDataNotify(src, p.proxy(0), 1); // done
            } else {
                p.await(n - 1);
                long ns = System.nanoTime() - t0;
                long bytes = (long) n * (n - 1) * iters * nwords * Vmmc.WORD;
                System.out.printf("all2all %s: %d processes on %s, %d words, %d iterations: %.2f MB/s aggregate%n",
                    args[0], n, p.procs.stream().map(x -> x.node().name() + "." + x.pid().value()).toList(),
                    nwords, iters, bytes / (ns / 1e9) / 1e6);
            }
        }
    }
}
