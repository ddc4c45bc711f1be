package io.softcmi.node;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A connected Unix-domain socket pair as the node has for a control connection: {@link #client}
 * (the process's end, blocking) and {@link #accepted} (the node's end, non-blocking).
 */
record UnixSocketPair(Path dir, ServerSocketChannel server, SocketChannel client, SocketChannel accepted)
        implements AutoCloseable {

    /** Binds a socket in a new temporary directory, connects to it and accepts. */
    static UnixSocketPair open() throws IOException {
        Path dir = Files.createTempDirectory("socket-pair-test");
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(dir.resolve("s.sock")));
        SocketChannel client = SocketChannel.open(StandardProtocolFamily.UNIX);
        client.connect(UnixDomainSocketAddress.of(dir.resolve("s.sock")));
        SocketChannel accepted = server.accept();
        accepted.configureBlocking(false);
        return new UnixSocketPair(dir, server, client, accepted);
    }

    /** Closes both ends and the listener and deletes the directory. */
    @Override
    public void close() throws IOException {
        client.close();
        accepted.close();
        server.close();
        Files.deleteIfExists(dir.resolve("s.sock"));
        Files.deleteIfExists(dir);
    }
}
