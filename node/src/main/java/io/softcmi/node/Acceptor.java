package io.softcmi.node;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Accepts connections on a listening channel until it closes, registers each in a set (so the
 * owner can close them all at shutdown) and serves it on a virtual thread of its own. Used by
 * the control socket and the TCP listener alike.
 */
final class Acceptor {
    private static final System.Logger LOG = System.getLogger("io.softcmi.node");

    private Acceptor() {
    }

    /**
     * Starts the accept loop on a daemon platform thread.
     *
     * @param name thread name; connections are served by virtual threads named {@code name + "-conn"}
     * @param server the listening channel
     * @param connections where accepted connections are registered
     * @param serve what to do with each connection
     * @return the accepting thread
     */
    static Thread start(String name, ServerSocketChannel server, Set<SocketChannel> connections,
            Consumer<SocketChannel> serve) {
        return Thread.ofPlatform().daemon().name(name).start(() -> {
            while (server.isOpen()) {
                try {
                    SocketChannel ch = server.accept();
                    connections.add(ch);
                    Thread.ofVirtual().name(name + "-conn").start(() -> serve.accept(ch));
                } catch (IOException e) {
                    if (server.isOpen()) {
                        LOG.log(Level.WARNING, "{0}: accept failed: {1}", name, e.getMessage());
                    }
                }
            }
        });
    }
}
