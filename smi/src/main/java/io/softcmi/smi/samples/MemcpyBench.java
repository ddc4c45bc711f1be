package io.softcmi.smi.samples;

import io.softcmi.smi.MemcpyHandle;
import io.softcmi.smi.RegionType;
import io.softcmi.smi.Smi;
import io.softcmi.smi.SmiRegion;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * The SMI example {@code memcpy_bench} (manual §14.3), reduced: process 0 copies blocks of 8 B to
 * {@code MAX} bytes from private memory into a {@code LOCAL} region of its own (local) and into
 * process 1's {@code LOCAL} region (remote, imported as {@code REMOTE}), with {@code SMI_Memcpy}
 * (sync) and {@code SMI_Imemcpy} + {@code SMI_Memwait} (async), and prints MiB/s. Then it shows
 * that an asynchronous copy overlaps with computation (copy alone, compute alone, both), and
 * measures a raw TCP stream between the two processes' hosts in the same run as the baseline.
 * <pre>
 *   bin/smirun -np 2 -nodes local:a local:b -- io.softcmi.smi.samples.MemcpyBench [MAX] [--png FILE]
 * </pre>
 * With {@code --png FILE} process 0 also draws the curve ({@link MemcpyCurve}).
 */
public final class MemcpyBench {
    private MemcpyBench() {
    }

    /**
     * Runs the benchmark.
     *
     * @param args {@code [MAX] [--png FILE]}: largest block in bytes (default 16 MiB), where to draw the curve
     */
    public static void main(String[] args) {
        List<String> a = List.of(args);
        int pngAt = a.indexOf("--png");
        Path png = pngAt >= 0 && pngAt + 1 < args.length ? Path.of(args[pngAt + 1]) : null;
        long max = args.length > 0 && !args[0].startsWith("--") ? Long.parseLong(args[0]) : 16L << 20;
        List<MemcpyCurve.Row> rows = new java.util.ArrayList<>();
        SampleMain.run(args, smi -> {
            Arena arena = Arena.ofAuto();
            int me = smi.procRank();
            int peer = smi.procSize() > 1 && me <= 1 ? 1 - me : me;
            SmiRegion mine = smi.createShreg(RegionType.LOCAL, Smi.initReginfo(max, me), Set.of());
            byte[] id = ByteBuffer.allocate(8).putLong(mine.sgmtId()).array();
            byte[] peerId = new byte[8];
            if (smi.procSize() > 1 && me <= 1) {
                smi.isend(id, 8, 1 - me);
                smi.recv(peerId, 8, 1 - me);
                smi.sendWait(1 - me);
            } else {
                peerId = id;
            }
            SmiRegion far = me > 1 ? null : smi.createShreg(RegionType.REMOTE,
                Smi.initReginfo(0, peer).sgmtId(ByteBuffer.wrap(peerId).getLong()), Set.of());
            MemorySegment src = arena.allocate(max, 64);
            src.fill((byte) 0x5a);
            smi.barrier();
            if (me == 0) {
                System.out.printf("memcpy_bench: %d processes, %s -> %s%n", smi.procSize(), smi.nodeName(),
                    smi.procSize() > 1 ? "process 1 (node " + smi.procToNode(1) + ")" : "itself");
                System.out.printf("%10s %14s %14s %14s %14s%n", "bytes", "local sync", "local async", "remote sync",
                    "remote async");
                rows.clear();
                for (long size = 8; size <= max; size *= 2) {
                    int reps = (int) Math.max(3, Math.min(2000, (64L << 20) / size));
                    double ls = rate(smi, mine, src, size, reps, false);
                    double la = rate(smi, mine, src, size, reps, true);
                    double rs = rate(smi, far, src, size, Math.max(3, reps / 8), false);
                    double ra = rate(smi, far, src, size, Math.max(3, reps / 8), true);
                    System.out.printf("%10d %10.1f MiB/s %10.1f MiB/s %10.1f MiB/s %10.1f MiB/s%n", size, ls, la, rs, ra);
                    rows.add(new MemcpyCurve.Row(size, new double[] {ls, la, rs, ra}));
                }
                overlap(smi, far, src, max);
            }
            double raw = stream(smi, max);
            if (me == 0 && png != null && !rows.isEmpty()) {
                try {
                    MemcpyCurve.write(png, "memcpy_bench: " + smi.procSize() + " processes on " + smi.nodeSize() + " node(s)",
                        rows, raw);
                    System.out.println("memcpy_bench: curve drawn in " + png);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            smi.barrier();
            if (far != null) {
                far.free();
            }
            smi.barrier();
            mine.free();
        });
    }

    private static double rate(Smi smi, SmiRegion dst, MemorySegment src, long size, int reps, boolean async) {
        long t0 = System.nanoTime();
        for (int i = 0; i < reps; i++) {
            if (async) {
                smi.memwait(smi.imemcpy(dst.at(0), src, size, Set.of()));
            } else {
                smi.memcpy(dst.at(0), src, size, Set.of());
            }
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        return size * (double) reps / secs / (1 << 20);
    }

    private static double compute(long n) {
        double x = 0;
        for (long i = 1; i < n; i++) {
            x += 1.0 / i;
        }
        return x;
    }

    private static void overlap(Smi smi, SmiRegion far, MemorySegment src, long size) {
        long c0 = System.nanoTime();
        smi.memcpy(far.at(0), src, size, Set.of());
        double copy = (System.nanoTime() - c0) / 1e6;
        long n = 1;
        double work;
        do {
            n *= 2;
            long w0 = System.nanoTime();
            compute(n);
            work = (System.nanoTime() - w0) / 1e6;
        } while (work < copy && n < (1L << 40));
        long b0 = System.nanoTime();
        MemcpyHandle h = smi.imemcpy(far.at(0), src, size, Set.of());
        double sink = compute(n);
        smi.memwait(h);
        double both = (System.nanoTime() - b0) / 1e6;
        System.out.printf("overlap: remote copy of %d bytes %.1f ms, computation %.1f ms, imemcpy + computation +"
            + " memwait %.1f ms (%.0f%% of the sum)%s%n", size, copy, work, both, 100 * both / (copy + work),
            sink == 0 ? "" : "");
    }

    /**
     * Raw TCP baseline: process 1 listens on loopback, process 0 streams {@code size} bytes 8 times.
     *
     * @return MiB/s at process 0, 0 elsewhere
     */
    private static double stream(Smi smi, long size) {
        if (smi.procSize() < 2 || smi.procRank() > 1) {
            return 0;
        }
        byte[] port = new byte[4];
        try {
            if (smi.procRank() == 1) {
                try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                    smi.send(ByteBuffer.allocate(4).putInt(ss.getLocalPort()).array(), 4, 0);
                    try (Socket s = ss.accept(); InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                        byte[] buf = new byte[1 << 20];
                        long left = 8 * size;
                        while (left > 0) {
                            int r = in.read(buf, 0, (int) Math.min(buf.length, left));
                            if (r < 0) {
                                throw new IOException("stream ended early");
                            }
                            left -= r;
                        }
                        out.write(1);
                    }
                }
            } else {
                smi.recv(port, 4, 1);
                try (Socket s = new Socket(InetAddress.getLoopbackAddress(), ByteBuffer.wrap(port).getInt());
                        OutputStream out = s.getOutputStream(); InputStream in = s.getInputStream()) {
                    s.setTcpNoDelay(true);
                    byte[] buf = new byte[1 << 20];
                    long t0 = System.nanoTime();
                    for (long sent = 0; sent < 8 * size; sent += buf.length) {
                        out.write(buf, 0, (int) Math.min(buf.length, 8 * size - sent));
                    }
                    out.flush();
                    if (in.read() != 1) {
                        throw new IOException("no acknowledgement");
                    }
                    double secs = (System.nanoTime() - t0) / 1e9;
                    double rate = 8.0 * size / secs / (1 << 20);
                    System.out.printf("raw TCP stream, loopback, between the two processes: %.1f MiB/s%n", rate);
                    return rate;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return 0;
    }
}
