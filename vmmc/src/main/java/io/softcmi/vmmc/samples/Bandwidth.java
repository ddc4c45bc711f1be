package io.softcmi.vmmc.samples;

import io.softcmi.vmmc.Vmmc;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The two-node bandwidth family ({@code <progname> <iterations> <start_nwords> <end_nwords>}):
 * the message size doubles from {@code start_nwords} to {@code end_nwords}, each size repeated
 * {@code iterations} times; prints one line per size and draws the curve as
 * {@code VMMCOUTDIR/<progname>.png}. Entry points: {@link PPBandwidth},
 * {@link OnewayBandwidth}, {@link BidirBandwidth}, {@link FetchBandwidth}.
 */
final class Bandwidth {
    enum Pattern { PINGPONG, ONEWAY, BIDIR, FETCH }

    /**
     * System property (a benchmark's knob, not the manual's): {@code OnewayBandwidth}, and each side
     * of {@code BidirBandwidth}, keeps sending each size for at least this many seconds (at least
     * {@code iterations} messages, at most {@link #MAX_TIMED_MESSAGES}); default 0, exactly
     * {@code iterations}. A {@code BidirBandwidth} side writes its count into the first word of
     * its last message, and the master counts both directions' messages.
     */
    static final String SECONDS_PROPERTY = "vmmc.bandwidth.seconds";
    static final int MAX_TIMED_MESSAGES = 1_000_000;
    /**
     * System property (a benchmark's knob, not the manual's): {@code PPBandwidth} sends each
     * message as its words by {@code SendData}, then its last word again by a one-word
     * {@code SendDataNotify} (a flag after the data, messages of two sizes); default false.
     */
    static final String FLAG_PROPERTY = "vmmc.bandwidth.flag";

    private Bandwidth() {
    }

    static void run(Pattern pattern, Class<?> main, String[] args) {
        int iters = Integer.parseInt(args[0]);
        long start = Long.parseLong(args[1]);
        long end = Long.parseLong(args[2]);
        int peer = Peers.peerIndex(args);
        long minNanos = (long) (Double.parseDouble(System.getProperty(SECONDS_PROPERTY, "0")) * 1e9);
        try (Vmmc v = Vmmc.init()) {
            Peers p = peer < 0 ? Peers.master(v, 2, main, Arrays.copyOf(args, 3), end) : Peers.peer(v, 1, 2, end);
            MemorySegment src = v.allocate(end);
            int other = 1 - p.rank;
            List<CurvePng.Point> curve = new ArrayList<>();
            if (p.rank == 0) {
                System.out.printf("%s: %d iterations, %s -> %s%n", main.getSimpleName(), iters,
                    v.myHostName(), p.procs.get(1).node().name());
                System.out.printf("%12s %12s %12s%n", "nwords", "bytes", "MB/s");
            }
            for (long n = start; n <= end; n *= 2) {
                long t0 = System.nanoTime();
                long sent = iters;
                long received = pattern == Pattern.PINGPONG ? iters : 0; // messages of the other direction counted
                switch (pattern) {
                    case PINGPONG -> {
                        boolean flag = Boolean.getBoolean(FLAG_PROPERTY) && n > 1;
                        for (int i = 0; i < iters; i++) {
                            if (p.rank != 0) {
                                p.await(1);
                            }
                            if (flag) {
                                v.sendData(src, p.proxy(other), n);
                                v.sendDataNotify(src.asSlice((n - 1) * Vmmc.WORD), p.proxy(other) + (n - 1) * Vmmc.WORD, 1);
                            } else {
                                v.sendDataNotify(src, p.proxy(other), n);
                            }
                            if (p.rank == 0) {
                                p.await(1);
                            }
                        }
                    }
                    case ONEWAY -> {
                        if (p.rank == 0) {
                            // The peer waits for the one notification per size, so the master may
                            // send more than iterations messages (vmmc.bandwidth.seconds).
                            long until = t0 + minNanos;
                            int i = 0;
                            for (; i < iters - 1 || (System.nanoTime() < until && i < MAX_TIMED_MESSAGES); i++) {
                                v.sendData(src, p.proxy(other), n);
                            }
                            v.sendDataNotify(src, p.proxy(other), n);
                            sent = i + 1;
                            p.await(1);
                        } else {
                            p.await(1);
                            v.sendDataNotify(src, p.proxy(other), 1);
                        }
                    }
                    case BIDIR -> {
                        // Each side sends for at least minNanos (vmmc.bandwidth.seconds) and tells the
                        // other in the first word of its last message how many it sent.
                        long until = t0 + minNanos;
                        int i = 0;
                        for (; i < iters - 1 || (System.nanoTime() < until && i < MAX_TIMED_MESSAGES - 1); i++) {
                            v.sendData(src, p.proxy(other), n);
                        }
                        sent = i + 1;
                        src.set(ValueLayout.JAVA_INT, 0, (int) sent);
                        v.sendDataNotify(src, p.proxy(other), n);
                        p.await(1);
                        received = p.buf.get(ValueLayout.JAVA_INT, 0);
                    }
                    case FETCH -> {
                        if (p.rank == 0) {
                            MemorySegment dst = v.allocate(n);
                            for (int i = 0; i < iters; i++) {
                                v.getData(dst, p.proxy(other), n);
                            }
                            v.sendDataNotify(src, p.proxy(other), 1);
                        } else {
                            p.await(1);
                        }
                    }
                    default -> throw new IllegalStateException();
                }
                long ns = System.nanoTime() - t0;
                long bytes = n * Vmmc.WORD * (sent + received);
                if (p.rank == 0) {
                    System.out.printf("%12d %12d %12.2f%n", n, n * Vmmc.WORD, bytes / (ns / 1e9) / 1e6);
                    if (minNanos > 0) {
                        System.out.printf("%12s (%d messages in %.2f s%s)%n", "", sent + received, ns / 1e9,
                            pattern == Pattern.BIDIR ? ", " + received + " of them from the other side" : "");
                    }
                    curve.add(new CurvePng.Point(n * Vmmc.WORD, bytes / (ns / 1e9) / 1e6));
                }
            }
            if (p.rank == 0) {
                String dir = System.getenv("VMMCOUTDIR") != null ? System.getenv("VMMCOUTDIR") : ".";
                Path png = Path.of(System.getProperty("vmmc.outdir", dir)).resolve(main.getSimpleName() + ".png");
                try {
                    CurvePng.write(png, main.getSimpleName() + ", " + iters + " iterations per size", curve);
                    System.out.println(main.getSimpleName() + ": curve in " + png);
                } catch (IOException | RuntimeException e) {
                    System.out.println(main.getSimpleName() + ": no curve (" + e + ")");
                }
                System.out.println(main.getSimpleName() + ": done");
            }
        }
    }
}
