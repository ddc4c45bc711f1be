package io.softcmi.benchmarks.cluster;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * The machine's own limit, measured in the same run as softcmi: the other end of a raw Java TCP
 * ping-pong (both ends polling non-blocking sockets) or stream, in its own process.
 *
 * <pre>
 * RawTcpPeer echo REQUEST_BYTES REPLY_BYTES   answers each request of REQUEST_BYTES with REPLY_BYTES
 * RawTcpPeer sink CHUNK_BYTES                 reads chunks (blocking), answers one byte after each
 * RawTcpPeer bidir CHUNK_BYTES ITERATIONS [SECONDS]  accepts two connections: on the first it is a
 *                                             sink of chunks up to the marked last one; on the second,
 *                                             after one "go" byte, it sends at least ITERATIONS chunks
 *                                             for at least SECONDS (default 0), each waiting for a
 *                                             1-byte ack, at the same time; then writes its bytes
 *                                             received and sent (two longs) on the second
 *                                             ({@link RawBidirStream})
 * RawTcpPeer server REQUEST_BYTES REPLY_BYTES the classic blocking thread-per-connection echo server:
 *                                             serves any number of connections until killed
 * RawTcpPeer pollserver REQUEST_BYTES REPLY_BYTES  the same, each connection's thread polling
 * </pre>
 * Prints "PORT n" when listening on 127.0.0.1; {@code echo}, {@code sink} and {@code bidir}
 * serve one client and exit.
 */
public final class RawTcpPeer {
    private RawTcpPeer() {
    }

    /**
     * Entry point.
     *
     * @param args mode and sizes
     * @throws IOException if the socket fails
     */
    public static void main(String[] args) throws IOException {
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress("127.0.0.1", 0));
            System.out.println("PORT " + ((InetSocketAddress) server.getLocalAddress()).getPort());
            System.out.flush();
            if (args[0].equals("server") || args[0].equals("pollserver")) {
                boolean poll = args[0].equals("pollserver");
                int request = Integer.parseInt(args[1]);
                int reply = Integer.parseInt(args[2]);
                while (true) {
                    SocketChannel ch = server.accept();
                    Thread.ofPlatform().daemon().start(() -> serveOne(ch, poll, request, reply));
                }
            }
            if (args[0].equals("bidir")) {
                RawBidirStream.peer(server, Integer.parseInt(args[1]), Integer.parseInt(args[2]),
                    args.length > 3 ? Double.parseDouble(args[3]) : 0);
                return;
            }
            try (SocketChannel ch = server.accept()) {
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                if (args[0].equals("echo")) {
                    ch.configureBlocking(false);
                    echo(ch, Integer.parseInt(args[1]), Integer.parseInt(args[2]));
                } else {
                    sink(ch, Integer.parseInt(args[1]));
                }
            }
        }
    }

    private static void serveOne(SocketChannel ch, boolean poll, int request, int reply) {
        try (ch) {
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            if (poll) {
                ch.configureBlocking(false);
                echo(ch, request, reply);
                return;
            }
            answer(ch, ByteBuffer.allocateDirect(request), ByteBuffer.allocateDirect(reply));
        } catch (IOException e) {
            // client gone
        }
    }

    /**
     * Answers each request of {@code in}'s capacity with {@code out}'s bytes until the client
     * closes the connection (either blocking mode: a non-blocking socket is polled).
     */
    static void answer(SocketChannel ch, ByteBuffer in, ByteBuffer out) throws IOException {
        while (true) {
            in.clear();
            while (in.hasRemaining()) {
                if (ch.read(in) < 0) {
                    return;
                }
            }
            out.clear();
            while (out.hasRemaining()) {
                ch.write(out);
            }
        }
    }

    private static void echo(SocketChannel ch, int requestBytes, int replyBytes) throws IOException {
        ByteBuffer in = ByteBuffer.allocateDirect(requestBytes);
        ByteBuffer out = ByteBuffer.allocateDirect(replyBytes);
        while (true) {
            in.clear();
            if (!poll(ch, in)) {
                return;
            }
            out.clear();
            while (out.hasRemaining()) {
                ch.write(out);
            }
        }
    }

    /** Blocking reads: for bulk data the kernel's wake-up is amortized over a megabyte. */
    private static void sink(SocketChannel ch, int chunk) throws IOException {
        answer(ch, ByteBuffer.allocateDirect(chunk), ByteBuffer.allocateDirect(1));
    }

    /**
     * One request/reply exchange of a client: writes {@code request} whole, then reads until
     * {@code reply} is full (blocking in {@code read} on a blocking socket, spinning on a
     * non-blocking one).
     *
     * @throws IOException if the peer closed the connection
     */
    static void exchange(SocketChannel ch, ByteBuffer request, ByteBuffer reply) throws IOException {
        request.clear();
        while (request.hasRemaining()) {
            ch.write(request);
        }
        reply.clear();
        while (reply.hasRemaining()) {
            if (ch.read(reply) < 0) {
                throw new IOException("server closed");
            }
        }
    }

    /**
     * One round trip of a polling client: writes {@code request} whole, then spins on the
     * non-blocking socket until {@code reply} is full.
     *
     * @throws IOException if the socket fails or the server closed it
     */
    static void pollRound(SocketChannel ch, ByteBuffer request, ByteBuffer reply) throws IOException {
        request.clear();
        while (request.hasRemaining()) {
            ch.write(request);
        }
        reply.clear();
        if (!poll(ch, reply)) {
            throw new IOException("server closed");
        }
    }

    /** Reads until {@code b} is full, spinning on the non-blocking socket; false at end of stream. */
    static boolean poll(SocketChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) {
                return false;
            }
            Thread.onSpinWait();
        }
        return true;
    }
}
