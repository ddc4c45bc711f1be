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
 * {@link RawTcpPeer} {@code bidir}) each send at least {@code iterations} chunks of the same size,
 * and keep sending for at least {@code seconds} (as the sample does with
 * {@code vmmc.bandwidth.seconds}), to the other at the same time over loopback, each chunk
 * acknowledged by one byte before the next is sent (the rule of the one-way raw stream), on two
 * connections (one per direction); the first byte of a side's last chunk is 1, of the others 0.
 * Counted as the sample counts: the bytes of both directions over the time from the start until
 * this side's last chunk is acknowledged and the peer's last chunk has arrived.
 */
final class RawBidirStream {
    /** Chunks per direction at most, as the sample's {@code MAX_TIMED_MESSAGES}. */
    private static final int MAX_CHUNKS = 1_000_000;

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
     * @param iterations chunks per direction at least
     * @param seconds time each side keeps sending at least (0: exactly {@code iterations} chunks)
     * @param children where the peer process is registered (to be stopped by the caller)
     * @return the counts and time
     * @throws IOException if a socket fails or the peer does not start
     */
    static Result run(int bytes, int iterations, double seconds, List<Process> children)
        throws IOException, InterruptedException {
        int port = ChildProcesses.rawTcpPort(children, "bidir", Integer.toString(bytes), Integer.toString(iterations),
            Double.toString(seconds));
        try (SocketChannel out = connect(port); SocketChannel in = connect(port)) {
            long[] received = new long[1];
            IOException[] failed = new IOException[1];
            long t0 = System.nanoTime();
            write(in, ByteBuffer.allocateDirect(1)); // go: the peer starts sending now
            Thread sink = Thread.ofPlatform().start(() -> {
                try {
                    received[0] = sink(in, bytes);
                } catch (IOException e) {
                    failed[0] = e;
                }
            });
            long sent = source(out, bytes, iterations, t0 + (long) (seconds * 1e9));
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
    static void peer(ServerSocketChannel server, int bytes, int iterations, double seconds) throws IOException {
        try (SocketChannel in = server.accept(); SocketChannel out = server.accept()) {
            in.setOption(StandardSocketOptions.TCP_NODELAY, true);
            out.setOption(StandardSocketOptions.TCP_NODELAY, true);
            long[] received = new long[1];
            Thread sink = Thread.ofPlatform().start(() -> {
                try {
                    received[0] = sink(in, bytes);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            read(out, ByteBuffer.allocateDirect(1)); // go
            long sent = source(out, bytes, iterations, System.nanoTime() + (long) (seconds * 1e9));
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

    /**
     * Sends at least {@code iterations} chunks and until {@code until} ({@link System#nanoTime}),
     * each waiting for its 1-byte ack, the last one marked; returns the bytes acknowledged.
     */
    private static long source(SocketChannel ch, int bytes, int iterations, long until) throws IOException {
        ByteBuffer chunk = ByteBuffer.allocateDirect(bytes);
        ByteBuffer ack = ByteBuffer.allocateDirect(1);
        long moved = 0;
        for (int i = 0; ; i++) {
            boolean last = i + 1 >= iterations && (System.nanoTime() >= until || i + 1 >= MAX_CHUNKS);
            chunk.put(0, (byte) (last ? 1 : 0));
            write(ch, chunk);
            read(ch, ack);
            moved += bytes;
            if (last) {
                return moved;
            }
        }
    }

    /** Reads chunks up to the marked last one, answering one byte after each; returns the bytes read. */
    private static long sink(SocketChannel ch, int bytes) throws IOException {
        ByteBuffer chunk = ByteBuffer.allocateDirect(bytes);
        ByteBuffer ack = ByteBuffer.allocateDirect(1);
        long moved = 0;
        while (true) {
            moved += read(ch, chunk);
            write(ch, ack);
            if (chunk.get(0) != 0) {
                return moved;
            }
        }
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
