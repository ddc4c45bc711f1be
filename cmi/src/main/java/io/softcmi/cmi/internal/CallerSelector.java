package io.softcmi.cmi.internal;

import java.io.IOException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;

/**
 * A selector of the control connection's callers on its socket, beside the reader thread's: the
 * caller that holds the read lock blocks here for its own reply ({@link NodeChannel}), so the
 * reply costs its wake-up alone. Opened on first use; one caller at a time (the read lock).
 */
final class CallerSelector implements AutoCloseable {
    private final SocketChannel channel;
    private volatile Selector selector;
    private volatile boolean closed;

    /**
     * @param channel the control socket, non-blocking
     */
    CallerSelector(SocketChannel channel) {
        this.channel = channel;
    }

    /**
     * Waits until the socket is readable, at most {@code millis}.
     *
     * @param millis the longest wait, at least 1
     * @throws IOException if the connection closed
     */
    void await(long millis) throws IOException {
        Selector s = selector;
        if (s == null) {
            s = Selector.open();
            channel.register(s, SelectionKey.OP_READ);
            selector = s;
            if (closed) {
                s.close();
            }
        }
        try {
            s.select(millis);
        } catch (ClosedSelectorException e) {
            throw new IOException("connection to the node closed", e);
        }
        s.selectedKeys().clear();
    }

    /** Closes the selector; a caller blocked in it wakes and fails. */
    @Override
    public void close() {
        closed = true;
        Selector s = selector;
        if (s != null) {
            try {
                s.close();
            } catch (IOException ignored) {
                // Closing anyway.
            }
        }
    }
}
