package io.softcmi.vmmc.samples;

import io.softcmi.vmmc.Vmmc;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * The manual's {@code latency numberofwords numberofiterations}: ping-pong of one message with
 * notification between this node and the next session host (a spawned peer); prints the round
 * trip and one-way latency. Each side sends its next message from its notification handler, as
 * the raw ping-pong's peers answer on the thread that reads (the manual allows
 * {@code SendDataNotify} in a handler): a round trip is the time from one of the master's sends
 * to its handler's call for the answer. The main threads start the exchange and wait for its end;
 * the peer answers the first message from its main thread, once its imports are done. Also
 * prints the notification delivery time: from the master's {@code SendDataNotify} returning to
 * the peer's handler starting (the peer stamps its answer's first word; both processes must be
 * on one machine, whose {@code System.nanoTime} clock they share).
 *
 * <p>The timed round trips come after untimed ones, as a JVM benchmark warms up: by default a
 * tenth of the iterations and at least {@value #MIN_WARM_UP} (docs/vmmc.md, "Warm-up": a fresh
 * JVM's first 10,000-15,000 round trips run while the JIT compiles the path, at 1.5-4x the
 * steady time). {@code -Dvmmc.latency.warmup=N} sets the count (both sides read it; the peer
 * gets it from its spawn), for example a tenth of the iterations alone to time a fresh JVM.
 */
public final class Latency {
    /** Messages per wait of a main thread for its handler (bounds one wait in time). */
    private static final int CHUNK = 1000;
    /** The fewest untimed round trips by default: measured, a fresh JVM is steady after 10,000-15,000 (2026-11-27). */
    public static final int MIN_WARM_UP = 20_000;
    /** System property {@value}: the untimed round trips before the timed ones. */
    public static final String WARM_UP_PROPERTY = "vmmc.latency.warmup";

    private Latency() {
    }

    /** The master's side of the exchange, driven by its handler after the first send. */
    private static final class Master implements Runnable {
        private final Vmmc vmmc;
        private final Peers peers;
        private final MemorySegment src;
        private final long nwords;
        private final long[] rtt;
        /**
         * Per round trip: from the master's SendDataNotify returning to the peer's handler starting (ns);
         * negative when a polling peer's handler starts before the call has returned.
         */
        private final long[] delivery;
        private final int warm;
        private int next; // handler thread only, after the first send
        private volatile long sentAt;
        private volatile long returnedAt;

        Master(Vmmc vmmc, Peers peers, MemorySegment src, long nwords, int iters, int warm) {
            this.vmmc = vmmc;
            this.peers = peers;
            this.src = src;
            this.nwords = nwords;
            this.rtt = new long[iters];
            this.delivery = new long[iters];
            this.warm = warm;
            this.next = -warm;
        }

        void send() {
            sentAt = System.nanoTime();
            vmmc.sendDataNotify(src, peers.proxy(1), nwords);
            returnedAt = System.nanoTime();
        }

        /** The handler: records the round trip just ended and sends the next message. */
        @Override
        public void run() {
            long now = System.nanoTime();
            int i = next++;
            if (i >= 0) {
                rtt[i] = now - sentAt;
                // The peer's handler wrote the low 32 bits of its System.nanoTime() (one clock for
                // every process of a machine) into word 0 of its answer as it started.
                delivery[i] = peers.buf.get(ValueLayout.JAVA_INT_UNALIGNED, 0) - (int) returnedAt;
            }
            if (i + 1 < rtt.length) {
                send();
            }
        }

        int messages() {
            return warm + rtt.length;
        }
    }

    /**
     * Runs the sample.
     *
     * @param args {@code numberofwords numberofiterations}
     */
    public static void main(String[] args) {
        long nwords = Long.parseLong(args[0]);
        int iters = Integer.parseInt(args[1]);
        int warm = warmUp(iters);
        int peer = Peers.peerIndex(args);
        try (Vmmc v = Vmmc.init()) {
            Peers p = peer < 0 ? Peers.master(v, 2, Latency.class, Arrays.copyOf(args, 2), nwords)
                : Peers.peer(v, 1, 2, nwords);
            MemorySegment src = v.allocate(nwords);
            if (p.rank == 0) {
                Master m = new Master(v, p, src, nwords, iters, warm);
                p.onArrival = m;
                long start = System.nanoTime();
                m.send();
                awaitAll(p, m.messages());
                System.out.printf("warm-up: %d untimed round trips first (%s=N sets the count); the whole exchange took %.2f s%n",
                    warm, WARM_UP_PROPERTY, (System.nanoTime() - start) / 1e9);
                long[] rtt = m.rtt;
                Arrays.sort(rtt);
                long[] delivery = m.delivery;
                Arrays.sort(delivery);
                double mean = Arrays.stream(rtt).average().orElse(0) / 1000.0;
                System.out.printf("latency: %d words, %d iterations: round trip mean %.1f us, p50 %.1f us, p99 %.1f us;"
                    + " one-way %.1f us%n", nwords, iters, mean, rtt[iters / 2] / 1000.0,
                    rtt[Math.min(iters - 1, (int) (iters * 0.99))] / 1000.0, mean / 2);
                System.out.printf("delivery: from SendDataNotify returning to the peer's handler starting: median %.1f us,"
                    + " 99th percentile %.1f us (same machine only: one clock)%n", delivery[iters / 2] / 1000.0,
                    delivery[Math.min(iters - 1, (int) (iters * 0.99))] / 1000.0);
            } else {
                p.await(1); // the first message: this side's imports are done
                p.onArrival = () -> {
                    src.set(ValueLayout.JAVA_INT_UNALIGNED, 0, (int) System.nanoTime()); // for the master's delivery figure
                    v.sendDataNotify(src, p.proxy(0), nwords);
                };
                v.sendDataNotify(src, p.proxy(0), nwords);
                awaitAll(p, warm + iters - 1);
            }
        }
    }

    /**
     * The untimed round trips of a run (the benchmark gives its raw baseline as many).
     *
     * @param iters the timed round trips
     * @return the untimed round trips before them: {@value #WARM_UP_PROPERTY} if set, else a tenth of
     *     {@code iters} and at least {@value #MIN_WARM_UP}
     * @throws IllegalArgumentException if the property is not a whole number of at least 1
     */
    public static int warmUp(int iters) {
        String set = System.getProperty(WARM_UP_PROPERTY);
        if (set == null) {
            return Math.max(MIN_WARM_UP, iters / 10);
        }
        try {
            int n = Integer.parseInt(set.trim());
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(WARM_UP_PROPERTY + " must be a whole number of at least 1, not '" + set + "'");
    }

    /** Waits for {@code n} arrivals, at most {@value #CHUNK} per wait. */
    private static void awaitAll(Peers p, int n) {
        for (int left = n; left > 0; left -= Math.min(left, CHUNK)) {
            p.await(Math.min(left, CHUNK));
        }
    }
}
