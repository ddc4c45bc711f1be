package io.softcmi.vmmc.samples;

import io.softcmi.vmmc.Vmmc;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Random;

/**
 * The manual's multi-node family, {@code <prog_name> <num_nodes> <nwords> <iterations>}: the run
 * uses {@code num_nodes} processes on consecutive session hosts starting with the master's; every
 * message is {@code nwords} words with a notification. The random choices come from one seed the
 * master passes to its peers, so all processes follow the same pattern. Entry points:
 * {@link RandomChain}, {@link RandomOne2All}, {@link RandomAll2All}.
 */
final class MultiNode {
    enum Pattern { CHAIN, ONE2ALL, ALL2ALL }

    private MultiNode() {
    }

    static void run(Pattern pattern, Class<?> main, String[] args) {
        int n = Integer.parseInt(args[0]);
        long nwords = Long.parseLong(args[1]);
        int iters = Integer.parseInt(args[2]);
        int peer = Peers.peerIndex(args);
        long seed = peer < 0 ? System.nanoTime() : Long.parseLong(args[3]);
        try (Vmmc v = Vmmc.init()) {
            String[] passed = Arrays.copyOf(args, 4);
            passed[3] = Long.toString(seed);
            Peers p = peer < 0 ? Peers.master(v, n, main, passed, nwords)
                : Peers.peer(v, Integer.parseInt(args[peer + 1]), n, nwords);
            MemorySegment src = v.allocate(nwords);
            Random rnd = new Random(seed);
            long t0 = System.nanoTime();
            int messages = 0;
            switch (pattern) {
                case CHAIN -> {
                    // A->B, B->C, ..., X->A: steps chosen at random, never to oneself, ending at the master
                    java.util.List<Integer> steps = new java.util.ArrayList<>(java.util.List.of(0));
                    for (int j = 1; j < iters || steps.getLast() == 0; j++) {
                        int r;
                        do {
                            r = rnd.nextInt(n);
                        } while (r == steps.getLast());
                        steps.add(r);
                    }
                    steps.add(0);
                    int[] seq = steps.stream().mapToInt(Integer::intValue).toArray();
                    iters = seq.length - 1;
                    for (int j = 0; j < iters; j++) {
                        if (p.rank == seq[j]) {
                            if (j > 0) {
                                p.await(1);
                            }
                            v.sendDataNotify(src, p.proxy(seq[j + 1]), nwords);
                            messages++;
                        }
                    }
                    if (p.rank == 0) {
                        p.await(1);
                    }
                }
                case ONE2ALL -> {
                    // A->others, others->B, B->others, ..., others->A
                    int[] roots = new int[iters + 1];
                    for (int j = 1; j < iters; j++) {
                        roots[j] = rnd.nextInt(n);
                    }
                    for (int j = 0; j < iters; j++) {
                        int root = roots[j];
                        int next = roots[j + 1];
                        if (p.rank == root) {
                            for (int d = 0; d < n; d++) {
                                if (d != root) {
                                    v.sendDataNotify(src, p.proxy(d), nwords);
                                    messages++;
                                }
                            }
                        } else {
                            p.await(1);
                        }
                        if (p.rank != next) {
                            v.sendDataNotify(src, p.proxy(next), nwords);
                            messages++;
                        } else {
                            p.await(n - 1);
                        }
                    }
                }
                case ALL2ALL -> {
                    for (int j = 0; j < iters; j++) {
                        for (int d = 0; d < n; d++) {
                            if (d != p.rank) {
                                v.sendDataNotify(src, p.proxy(d), nwords);
                                messages++;
                            }
                        }
                        p.await(n - 1);
                    }
                }
                default -> throw new IllegalStateException();
            }
            if (p.rank != 0) {
                // tell the master this process is done, so it reports after everyone
                v.sendDataNotify(src, p.proxy(0), 1);
            } else {
                p.await(n - 1);
                double us = (System.nanoTime() - t0) / 1e3;
                System.out.printf("%s: %d processes on %s, %d words, %d iterations: %.1f us per iteration, master sent %d messages%n",
                    main.getSimpleName(), n, p.procs.stream().map(x -> x.node().name() + "." + x.pid().value()).toList(),
                    nwords, iters, us / iters, messages);
            }
        }
    }
}
