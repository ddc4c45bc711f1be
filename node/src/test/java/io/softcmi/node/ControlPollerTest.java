package io.softcmi.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Readiness waits on non-blocking control sockets: a waiter wakes when its socket becomes
 * readable or writable, when the node closes the socket, and when the poller stops.
 */
@Timeout(30)
class ControlPollerTest {
    private UnixSocketPair pair;
    private SocketChannel client;
    private SocketChannel accepted;
    private ControlPoller poller;

    @BeforeEach
    void connect() throws IOException {
        pair = UnixSocketPair.open();
        client = pair.client();
        accepted = pair.accepted();
        poller = new ControlPoller();
    }

    @AfterEach
    void close() throws IOException {
        poller.close();
        pair.close();
    }

    @Test
    void shouldWakeAReaderWhenDataArrivesAndAWriterAtOnceWhenThereIsRoom() throws Exception {
        CompletableFuture<Void> reader = CompletableFuture.runAsync(() -> await(SelectionKey.OP_READ));
        Thread.sleep(50);
        assertTrue(!reader.isDone(), "nothing to read yet");
        client.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
        reader.get(10, TimeUnit.SECONDS);
        ByteBuffer in = ByteBuffer.allocate(8);
        assertEquals(3, accepted.read(in));
        poller.await(accepted, SelectionKey.OP_WRITE); // an empty send buffer has room
    }

    @Test
    void shouldWakeAWaiterWhenTheNodeClosesItsSocket() throws Exception {
        CompletableFuture<Void> reader = CompletableFuture.runAsync(() -> await(SelectionKey.OP_READ));
        Thread.sleep(50);
        accepted.close();
        poller.closed(accepted);
        reader.get(10, TimeUnit.SECONDS); // woken: its next read fails
        assertThrows(ClosedChannelException.class, () -> poller.await(accepted, SelectionKey.OP_READ));
    }

    @Test
    void shouldFailEveryWaiterWhenThePollerStops() throws Exception {
        CompletableFuture<Void> reader = CompletableFuture.runAsync(() -> await(SelectionKey.OP_READ));
        Thread.sleep(50);
        poller.close();
        reader.get(10, TimeUnit.SECONDS);
        assertThrows(ClosedChannelException.class, () -> poller.await(accepted, SelectionKey.OP_READ));
    }

    private void await(int ops) {
        try {
            poller.await(accepted, ops);
        } catch (IOException e) {
            // woken by a close: what the test expects
        }
    }
}
