package io.softcmi.vmmc.samples;

import io.softcmi.vmmc.Vmmc;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The manual's {@code latency numberofwords numberofiterations}: ping-pong of one message with
 * notification between this node and the next session host (a spawned peer); prints the round
 * trip and one-way latency.
 */
public final class Latency {
    private Latency() {
    }

    /**
     * Runs the sample.
     *
     * @param args {@code numberofwords numberofiterations}
     */
    public static void main(String[] args) {
        long nwords = Long.parseLong(args[0]);
        int iters = Integer.parseInt(args[1]);
        int warm = Math.max(1, iters / 10);
        int peer = Peers.peerIndex(args);
        try (Vmmc v = Vmmc.init()) {
            Peers p = peer < 0 ? Peers.master(v, 2, Latency.class, Arrays.copyOf(args, 2), nwords)
                : Peers.peer(v, 1, 2, nwords);
            MemorySegment src = v.allocate(nwords);
            long[] rtt = new long[iters];
            for (int i = -warm; i < iters; i++) {
                if (p.rank == 0) {
                    long t0 = System.nanoTime();
                    v.sendDataNotify(src, p.proxy(1), nwords);
                    p.await(1);
                    if (i >= 0) {
                        rtt[i] = System.nanoTime() - t0;
                    }
                } else {
                    p.await(1);
                    v.sendDataNotify(src, p.proxy(0), nwords);
                }
            }
            if (p.rank == 0) {
                Arrays.sort(rtt);
                double mean = Arrays.stream(rtt).average().orElse(0) / 1000.0;
                System.out.printf("latency: %d words, %d iterations: round trip mean %.1f us, p50 %.1f us, p99 %.1f us;"
                    + " one-way %.1f us%n", nwords, iters, mean, rtt[iters / 2] / 1000.0,
                    rtt[Math.min(iters - 1, (int) (iters * 0.99))] / 1000.0, mean / 2);
            }
        }
    }
}
