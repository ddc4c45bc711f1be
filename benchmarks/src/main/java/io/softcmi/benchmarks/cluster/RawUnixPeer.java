package io.softcmi.benchmarks.cluster;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The control path's own limit, measured in the same run as softcmi: the other end of a raw
 * Unix-domain socket ping-pong, in its own process.
 *
 * <pre>
 * RawUnixPeer SOCKET_PATH REQUEST_BYTES REPLY_BYTES poll|block
 * </pre>
 * Prints "READY" when listening; serves connections one after another (its thread polls, in
 * {@code poll} mode, only while a connection is open) until killed.
 */
public final class RawUnixPeer {
    private RawUnixPeer() {
    }

    /**
     * Entry point.
     *
     * @param args socket path, sizes, mode
     * @throws IOException if the socket fails
     */
    public static void main(String[] args) throws IOException {
        Path path = Path.of(args[0]);
        Files.deleteIfExists(path);
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(path));
            System.out.println("READY");
            System.out.flush();
            ByteBuffer in = ByteBuffer.allocateDirect(Integer.parseInt(args[1]));
            ByteBuffer out = ByteBuffer.allocateDirect(Integer.parseInt(args[2]));
            while (true) {
                try (SocketChannel ch = server.accept()) {
                    ch.configureBlocking(!args[3].equals("poll"));
                    RawTcpPeer.answer(ch, in, out);
                }
            }
        } finally {
            Files.deleteIfExists(path);
        }
    }
}
