package io.softcmi.benchmarks.cluster;

import io.softcmi.samples.JacobiStencil;
import io.softcmi.samples.JacobiWorker;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.Locale;

/**
 * One process of the raw TCP floor of the Jacobi benchmark ({@link RawJacobiFloor}): no softcmi
 * at all. It owns band {@code RANK} of 2 (the sample's row split, {@link JacobiWorker#first}) of
 * both grids on Java arrays, plus one halo row, and computes it with the sample's kernel
 * ({@link JacobiStencil#kernelRow(double[], double[], double[], double[])}, so the result is
 * bit-identical with the sequential run). Before each iteration it sends its edge row of the
 * source grid to the other process over one loopback TCP connection and receives the other's
 * edge row into its halo: that message is also the only synchronization between the two.
 *
 * <p>{@code poll} spins on a non-blocking socket (sending and receiving interleaved);
 * {@code block} writes its row whole, then blocks in {@code read} (each process's socket
 * buffers hold a row, so the two writes cannot wait for each other).
 *
 * <p>Rank 0 listens on 127.0.0.1 and prints {@code PORT p}; rank 1 connects to that port. Both
 * then exchange one byte (the start barrier), run the iterations, write their band after the
 * last one to {@code DIR/result-RANK.bin} (row-major doubles, native byte order, as
 * {@code JacobiWorker} does) and print {@code TIME seconds} (start barrier to the last
 * iteration's exchange and computation) and {@code CPU seconds} (its thread's CPU time over the
 * same span).
 *
 * <pre>
 * RawJacobiPeer DIR RANK N ITERATIONS poll|block [PORT]
 * </pre>
 */
public final class RawJacobiPeer {
    private static final int WORKERS = 2;
    private final int rank;
    private final int n;
    private final int first;
    private final int last;
    /** Rows {@code [lo, hi)} of each grid are held: the band and its one halo row. */
    private final int lo;
    private final double[][][] grids;
    private final ByteBuffer sendBuffer;
    private final ByteBuffer receiveBuffer;
    /** CPU time of this (the only) thread over the iterations. */
    private double cpuSeconds;
    private static final java.lang.management.ThreadMXBean THREADS = java.lang.management.ManagementFactory.getThreadMXBean();

    private RawJacobiPeer(int rank, int n) {
        this.rank = rank;
        this.n = n;
        this.first = JacobiWorker.first(rank, WORKERS, n);
        this.last = JacobiWorker.first(rank + 1, WORKERS, n);
        this.lo = Math.max(first - 1, 0);
        int hi = Math.min(last + 1, n);
        this.grids = new double[2][hi - lo][n];
        if (first == 0) { // the fixed top row, in both grids
            Arrays.fill(grids[0][0], 1.0);
            Arrays.fill(grids[1][0], 1.0);
        }
        this.sendBuffer = ByteBuffer.allocateDirect(8 * n).order(ByteOrder.nativeOrder());
        this.receiveBuffer = ByteBuffer.allocateDirect(8 * n).order(ByteOrder.nativeOrder());
    }

    private double[] row(int grid, int row) {
        return grids[grid][row - lo];
    }

    /** @return the global row this process sends (its edge next to the other band) */
    private int edgeRow() {
        return rank == 0 ? last - 1 : first;
    }

    /** @return the global row it receives (the other band's edge) */
    private int haloRow() {
        return rank == 0 ? last : first - 1;
    }

    private double iterate(SocketChannel ch, int iterations, boolean poll) throws IOException {
        ByteBuffer one = ByteBuffer.allocateDirect(1);
        exchange(ch, one, ByteBuffer.allocateDirect(1), poll); // start barrier
        long t0 = System.nanoTime();
        long cpu0 = THREADS.getCurrentThreadCpuTime();
        int from = Math.max(first, 1);
        int to = Math.min(last, n - 1);
        for (int it = 0; it < iterations; it++) {
            int src = it & 1;
            int dst = src ^ 1;
            sendBuffer.clear();
            sendBuffer.asDoubleBuffer().put(row(src, edgeRow()));
            receiveBuffer.clear();
            exchange(ch, sendBuffer, receiveBuffer, poll);
            DoubleBuffer in = receiveBuffer.flip().asDoubleBuffer();
            in.get(row(src, haloRow()));
            for (int i = from; i < to; i++) {
                JacobiStencil.kernelRow(row(src, i - 1), row(src, i), row(src, i + 1), row(dst, i));
            }
        }
        cpuSeconds = (THREADS.getCurrentThreadCpuTime() - cpu0) / 1e9;
        return (System.nanoTime() - t0) / 1e9;
    }

    /**
     * Sends {@code out} whole and fills {@code in}: interleaved on a non-blocking socket when
     * polling, else a blocking write and then blocking reads.
     */
    private static void exchange(SocketChannel ch, ByteBuffer out, ByteBuffer in, boolean poll) throws IOException {
        if (!poll) {
            while (out.hasRemaining()) {
                ch.write(out);
            }
        }
        while (in.hasRemaining() || out.hasRemaining()) {
            if (out.hasRemaining()) {
                ch.write(out);
            }
            if (in.hasRemaining() && ch.read(in) < 0) {
                throw new IOException("the other process closed the connection");
            }
            if (poll) {
                Thread.onSpinWait();
            }
        }
    }

    private void writeResult(Path dir, int grid) throws IOException {
        ByteBuffer bytes = ByteBuffer.allocate(Math.toIntExact(8L * (last - first) * n)).order(ByteOrder.nativeOrder());
        DoubleBuffer d = bytes.asDoubleBuffer();
        for (int i = first; i < last; i++) {
            d.put(row(grid, i));
        }
        Path tmp = dir.resolve("result-" + rank + ".tmp");
        Files.write(tmp, bytes.array()); // then renamed: the launcher never reads half a band
        Files.move(tmp, dir.resolve("result-" + rank + ".bin"), StandardCopyOption.ATOMIC_MOVE);
    }

    /** Socket buffers that hold a whole row each way, so that two blocking writes cannot wait for each other. */
    private static void size(SocketChannel ch, int rowBytes) throws IOException {
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        if (rowBytes > 32 * 1024) { // the defaults hold that much; setting them turns off the kernel's autotuning
            ch.setOption(StandardSocketOptions.SO_SNDBUF, 4 * rowBytes);
            ch.setOption(StandardSocketOptions.SO_RCVBUF, 4 * rowBytes);
        }
    }

    /**
     * Runs one process of the floor.
     *
     * @param args DIR, RANK (0 or 1), N, ITERATIONS, {@code poll} or {@code block}, and for rank 1 the PORT of rank 0
     * @throws IOException if the connection or the result file fails
     */
    public static void main(String[] args) throws IOException {
        if (args.length < 5) {
            throw new IllegalArgumentException("usage: RawJacobiPeer DIR RANK N ITERATIONS poll|block [PORT]");
        }
        Path dir = Path.of(args[0]);
        int rank = Integer.parseInt(args[1]);
        int n = Integer.parseInt(args[2]);
        int iterations = Integer.parseInt(args[3]);
        boolean poll = switch (args[4]) {
            case "poll" -> true;
            case "block" -> false;
            default -> throw new IllegalArgumentException("poll or block, not " + args[4]);
        };
        if (n < 4 || iterations < 0 || (rank != 0 && rank != 1) || (rank == 1 && args.length < 6)) {
            throw new IllegalArgumentException("need N >= 4, ITERATIONS >= 0, RANK 0 or 1 (1 with the PORT of 0)");
        }
        RawJacobiPeer me = new RawJacobiPeer(rank, n);
        double seconds;
        if (rank == 0) {
            try (ServerSocketChannel server = ServerSocketChannel.open()) {
                if (8 * n > 32 * 1024) {
                    server.setOption(StandardSocketOptions.SO_RCVBUF, 32 * n); // before accept, for the window scale
                }
                server.bind(new InetSocketAddress("127.0.0.1", 0));
                System.out.println("PORT " + ((InetSocketAddress) server.getLocalAddress()).getPort());
                System.out.flush();
                try (SocketChannel ch = server.accept()) {
                    seconds = me.run(ch, iterations, poll);
                }
            }
        } else {
            try (SocketChannel ch = SocketChannel.open()) {
                size(ch, 8 * n);
                ch.connect(new InetSocketAddress("127.0.0.1", Integer.parseInt(args[5])));
                seconds = me.run(ch, iterations, poll);
            }
        }
        me.writeResult(dir, iterations & 1);
        System.out.printf(Locale.ROOT, "TIME %.9f%n", seconds);
        System.out.printf(Locale.ROOT, "CPU %.9f%n", me.cpuSeconds);
    }

    private double run(SocketChannel ch, int iterations, boolean poll) throws IOException {
        size(ch, 8 * n);
        ch.configureBlocking(!poll);
        return iterate(ch, iterations, poll);
    }
}
