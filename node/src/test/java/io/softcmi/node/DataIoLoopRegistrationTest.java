package io.softcmi.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The steering race of {@link DataIoLoop}, made deterministic: a connection steered from loop A to
 * loop B and back to A before A selected again finds its old, cancelled key still in A's selector
 * ({@link DataIoLoop#register}).
 */
class DataIoLoopRegistrationTest {
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : open.reversed()) {
            c.close();
        }
    }

    @Test
    void shouldRegisterAConnectionThatComesBackBeforeItsOldLoopSelected() throws IOException {
        SocketChannel[] pair = connectedPair();
        SocketChannel client = pair[0];
        SocketChannel home = pair[1];
        Selector a = track(Selector.open());
        Selector b = track(Selector.open());

        SelectionKey first = DataIoLoop.register(a, home, "in A");
        first.cancel(); // steered to B: A has not selected since
        SelectionKey inB = DataIoLoop.register(b, home, "in B");
        assertTrue(inB.isValid());
        inB.cancel(); // and back to A
        assertThrows(CancelledKeyException.class, () -> home.register(a, SelectionKey.OP_READ, "plain"),
            "the race's precondition: A still holds the cancelled key");

        client.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
        SelectionKey again = DataIoLoop.register(a, home, "back in A");
        assertTrue(again.isValid());
        assertSame(a, again.selector());
        assertEquals("back in A", again.attachment());
        assertEquals(1, a.keys().size(), "the old key is gone, the new one registered");

        assertEquals(1, Math.max(a.selectNow(), a.selectedKeys().size()), "the request already in the socket is found");
        assertTrue(a.selectedKeys().contains(again));
        ByteBuffer in = ByteBuffer.allocate(8);
        assertEquals(3, home.read(in));
    }

    @Test
    void shouldKeepTheKeysTheFlushFoundReadyForTheSamePass() throws IOException {
        SocketChannel[] moving = connectedPair();
        SocketChannel[] staying = connectedPair();
        Selector a = track(Selector.open());
        Selector b = track(Selector.open());
        SelectionKey other = DataIoLoop.register(a, staying[1], "stays in A");
        SelectionKey first = DataIoLoop.register(a, moving[1], "in A");
        first.cancel();
        DataIoLoop.register(b, moving[1], "in B").cancel();

        staying[0].write(ByteBuffer.wrap(new byte[] {9})); // ready when the flush selects
        waitReadable(staying[1]);
        SelectionKey again = DataIoLoop.register(a, moving[1], "back in A");

        assertTrue(again.isValid());
        assertTrue(a.selectedKeys().contains(other), "the flush's ready key waits in the selected set: served in this pass");
        assertFalse(a.selectedKeys().contains(again), "nothing was sent on the connection that came back");
        assertEquals(2, a.keys().size());
    }

    @Test
    void shouldRegisterAFreshChannelAtTheFirstTry() throws IOException {
        SocketChannel[] pair = connectedPair();
        Selector a = track(Selector.open());
        SelectionKey k = DataIoLoop.register(a, pair[1], "new");
        assertTrue(k.isValid());
        assertEquals(SelectionKey.OP_READ, k.interestOps());
        assertEquals(0, a.selectedKeys().size(), "no flush for a channel that was never here");
    }

    /** Waits (at most 5 s) until the kernel reports bytes to read on {@code ch}. */
    private void waitReadable(SocketChannel ch) throws IOException {
        try (Selector s = Selector.open()) {
            ch.register(s, SelectionKey.OP_READ);
            assertEquals(1, s.select(5_000), "the byte sent did not arrive");
            s.keys().iterator().next().cancel();
            s.selectNow(); // deregister before the channel is registered elsewhere again
        }
    }

    /** @return a client and a home channel of one loopback connection; the home's is non-blocking */
    private SocketChannel[] connectedPair() throws IOException {
        ServerSocketChannel server = track(ServerSocketChannel.open());
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        SocketChannel client = track(SocketChannel.open(server.getLocalAddress()));
        SocketChannel home = track(server.accept());
        home.configureBlocking(false);
        return new SocketChannel[] {client, home};
    }

    private <T extends AutoCloseable> T track(T c) {
        open.add(c);
        return c;
    }
}
