package io.softcmi.benchmarks.cluster;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

/**
 * One hop of the raw TCP relay ring ({@link RelayRoundTrip}): a plain-Java process, no softcmi,
 * that reads each message of {@code MESSAGE_BYTES} whole from its inbound connection and writes it
 * to its outbound one, as a node daemon forwards a message to the process whose receive buffer it
 * homes. It listens on 127.0.0.1 and prints {@code PORT p}, reads the port of the next hop from
 * its standard input (one line), connects there, accepts one inbound connection, and forwards
 * until the inbound side ends; then it closes the outbound side (so the end travels along the
 * ring) and exits.
 *
 * <pre>
 * RawRelay MESSAGE_BYTES poll|block
 * </pre>
 * {@code poll} spins on a non-blocking inbound socket; {@code block} blocks in {@code read}.
 */
public final class RawRelay {
    private RawRelay() {
    }

    /**
     * Runs one hop.
     *
     * @param args MESSAGE_BYTES and {@code poll} or {@code block}
     * @throws IOException if a connection fails
     */
    public static void main(String[] args) throws IOException {
        int bytes = Integer.parseInt(args[0]);
        boolean poll = switch (args[1]) {
            case "poll" -> true;
            case "block" -> false;
            default -> throw new IllegalArgumentException("poll or block, not " + args[1]);
        };
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress("127.0.0.1", 0));
            System.out.println("PORT " + ((InetSocketAddress) server.getLocalAddress()).getPort());
            System.out.flush();
            String next = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII)).readLine();
            if (next == null) {
                return; // the launcher went away before the ring was built
            }
            try (SocketChannel out = SocketChannel.open(new InetSocketAddress("127.0.0.1", Integer.parseInt(next.trim())));
                    SocketChannel in = server.accept()) {
                out.setOption(StandardSocketOptions.TCP_NODELAY, true);
                in.setOption(StandardSocketOptions.TCP_NODELAY, true);
                in.configureBlocking(!poll);
                forward(in, out, ByteBuffer.allocateDirect(bytes));
            }
        }
    }

    /** Forwards whole messages from {@code in} to {@code out} until {@code in} ends. */
    private static void forward(SocketChannel in, SocketChannel out, ByteBuffer message) throws IOException {
        while (true) {
            message.clear();
            while (message.hasRemaining()) {
                if (in.read(message) < 0) {
                    return;
                }
                if (!in.isBlocking()) {
                    Thread.onSpinWait();
                }
            }
            message.flip();
            while (message.hasRemaining()) {
                out.write(message);
            }
        }
    }
}
