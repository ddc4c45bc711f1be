package io.softcmi.benchmarks.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.List;

/**
 * The raw TCP baseline of the {@code BidirBandwidth} sample: two processes (this one and a
 * {@link RawTcpPeer} {@code bidir}) each send {@code iterations} chunks of the same size to the
 * other at the same time over loopback, each chunk acknowledged by one byte before the next is
 * sent (the rule of the one-way raw stream), on two connections (one per direction). Counted as
 * the sample counts: the bytes of both directions, {@code 2 * bytes * iterations}, over the time
 * from the start until this side's last chunk is acknowledged and the peer's last chunk has
 * arrived.
 */
final class RawBidirStream {
    private RawBidirStream() {
    }

    /**
     * What one run moved: bytes sent and received by each side (as each side counted them), and
     * the time.
     *
     * @param sentHere bytes this process sent (and saw acknowledged)
     * @param receivedThere bytes the peer process read
     * @param sentThere bytes the peer process sent (and saw acknowledged)
     * @param receivedHere bytes this process read
     * @param seconds the timed part
     */
    record Result(long sentHere, long receivedThere, long sentThere, long receivedHere, double seconds) {
        /** @return MB/s (10^6 bytes), both directions counted */
        double mbPerSecond() {
            return (sentHere + receivedHere) / seconds / 1e6;
        }
    }

    /**
     * Runs one size against a fresh peer process.
     *
     * @param bytes chunk size
     * @param iterations chunks per direction
     * @param children where the peer process is registered (to be stopped by the caller)
     * @return the counts and time
     * @throws IOException if a socket fails or the peer does not start
     */
    static Result run(int bytes, int iterations, List<Process> children) throws IOException, InterruptedException {
        int port = ChildProcesses.rawTcpPort(children, "bidir", Integer.toString(bytes), Integer.toString(iterations));
        try (SocketChannel out = connect(port); SocketChannel in = connect(port)) {
            long[] received = new long[1];
            IOException[] failed = new IOException[1];
            long t0 = System.nanoTime();
            write(in, ByteBuffer.allocateDirect(1)); // go: the peer starts sending now
            Thread sink = Thread.ofPlatform().start(() -> {
                try {
                    received[0] = sink(in, bytes, iterations);
                } catch (IOException e) {
                    failed[0] = e;
                }
            });
            long sent = source(out, bytes, iterations);
            sink.join();
            long ns = System.nanoTime() - t0;
            if (failed[0] != null) {
                throw failed[0];
            }
            ByteBuffer counts = ByteBuffer.allocate(16);
            read(in, counts);
            return new Result(sent, counts.getLong(0), counts.getLong(8), received[0], ns / 1e9);
        }
    }

    /** The peer's side ({@code RawTcpPeer bidir}): both directions at once, then its counts. */
    static void peer(ServerSocketChannel server, int bytes, int iterations) throws IOException {
        try (SocketChannel in = server.accept(); SocketChannel out = server.accept()) {
            in.setOption(StandardSocketOptions.TCP_NODELAY, true);
            out.setOption(StandardSocketOptions.TCP_NODELAY, true);
            long[] received = new long[1];
            Thread sink = Thread.ofPlatform().start(() -> {
                try {
                    received[0] = sink(in, bytes, iterations);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            read(out, ByteBuffer.allocateDirect(1)); // go
            long sent = source(out, bytes, iterations);
            try {
                sink.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
            write(out, ByteBuffer.allocate(16).putLong(0, received[0]).putLong(8, sent));
        }
    }

    private static SocketChannel connect(int port) throws IOException {
        SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", port));
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        return ch;
    }

    /** Sends the chunks, each waiting for its 1-byte ack; returns the bytes acknowledged. */
    private static long source(SocketChannel ch, int bytes, int iterations) throws IOException {
        return stopAndWait(ch, bytes, iterations, true);
    }

    /** Reads the chunks, answering one byte after each; returns the bytes read. */
    private static long sink(SocketChannel ch, int bytes, int iterations) throws IOException {
        return stopAndWait(ch, bytes, iterations, false);
    }

    private static long stopAndWait(SocketChannel ch, int bytes, int iterations, boolean sending) throws IOException {
        ByteBuffer chunk = ByteBuffer.allocateDirect(bytes);
        ByteBuffer ack = ByteBuffer.allocateDirect(1);
        long moved = 0;
        for (int i = 0; i < iterations; i++) {
            if (sending) {
                write(ch, chunk);
                read(ch, ack);
                moved += bytes;
            } else {
                moved += read(ch, chunk);
                write(ch, ack);
            }
        }
        return moved;
    }

    private static void write(SocketChannel ch, ByteBuffer b) throws IOException {
        b.clear();
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }

    private static int read(SocketChannel ch, ByteBuffer b) throws IOException {
        b.clear();
        int n = 0;
        while (b.hasRemaining()) {
            int r = ch.read(b);
            if (r < 0) {
                throw new IOException("peer closed after " + n + " of " + b.capacity() + " bytes");
            }
            n += r;
        }
        return n;
    }
}
