package io.softcmi.cmi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.cmi.CmiAccessError;
import io.softcmi.cmi.CmiAccessException;
import io.softcmi.wire.DataProtocol;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A context's new data connection to a home names the one it replaces in its HELLO (docs/architecture.md
 * §7.4, "Deadlines"), so that the home drops what the old one left unread: the last connection
 * opened to that home, also when attempts in between failed. Against a home that answers HELLOs
 * and nothing else, so every call times out and breaks its connection.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConnectionSupersedeTest {
    private static final long TIMEOUT = TimeUnit.MILLISECONDS.toNanos(300);

    /** The {@code (number, supersedes)} of a HELLO. */
    private record Hello(long number, long supersedes) {
    }

    /** Answers each connection's HELLO, or (while {@link #answerHellos} is false) nothing; never anything else. */
    private static final class HelloHome implements AutoCloseable {
        final ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
        final List<Hello> hellos = new CopyOnWriteArrayList<>();
        final List<SocketChannel> accepted = new CopyOnWriteArrayList<>();
        volatile boolean answerHellos = true;
        final Thread thread = Thread.ofPlatform().daemon().name("hello-home").start(this::serve);

        HelloHome() throws IOException {
        }

        NodeAddressImpl address() throws IOException {
            return new NodeAddressImpl(new byte[NodeAddressImpl.ID_LENGTH], "127.0.0.1",
                ((InetSocketAddress) server.getLocalAddress()).getPort());
        }

        private void serve() {
            try {
                while (true) {
                    SocketChannel ch = server.accept();
                    accepted.add(ch);
                    read(ch, ByteBuffer.allocate(1)); // 'D'
                    ByteBuffer h = ByteBuffer.allocate(DataProtocol.REQUEST_HEADER).order(ByteOrder.LITTLE_ENDIAN);
                    read(ch, h);
                    read(ch, ByteBuffer.allocate(DataProtocol.requestPayload(h.getInt(0))));
                    hellos.add(new Hello(h.getLong(48), h.getLong(64)));
                    if (answerHellos) {
                        ByteBuffer r = ByteBuffer.allocate(DataProtocol.REPLY_HEADER).order(ByteOrder.LITTLE_ENDIAN);
                        DataProtocol.writeReply(r, DataProtocol.STATUS_OK, h.getLong(8), DataProtocol.VERSION, 0);
                        ch.write(r.flip());
                    }
                }
            } catch (IOException e) {
                // Closed by the test.
            }
        }

        private static void read(SocketChannel ch, ByteBuffer b) throws IOException {
            while (b.hasRemaining()) {
                if (ch.read(b) < 0) {
                    throw new java.io.EOFException();
                }
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
            for (SocketChannel c : accepted) {
                c.close();
            }
        }
    }

    private static void timesOut(RemoteConnections connections, NodeAddressImpl home) {
        RemoteConnection c = connections.get(home, 1, 0);
        RemoteCall r = c.load(1, FakeHome.token(), 0, 8, connections.deadline());
        assertEquals(RemoteConnection.STATUS_TIMEOUT, r.status, "the home answers no request");
        assertTrue(c.broken());
    }

    @Test
    void shouldNameTheLastConnectionOpenedInTheHelloOfTheNext() throws Exception {
        try (HelloHome home = new HelloHome()) {
            RemoteConnections connections = new RemoteConnections(null, new Tracer(null), () -> TIMEOUT, new byte[8]);
            NodeAddressImpl at = home.address();
            timesOut(connections, at);
            timesOut(connections, at);
            // Attempts whose HELLO is not answered (a home that hangs) name the last connection opened, not each other.
            home.answerHellos = false;
            assertEquals(CmiAccessError.TRANSIENT,
                assertThrows(CmiAccessException.class, () -> connections.get(at, 1, 0)).accessError());
            assertEquals(CmiAccessError.TRANSIENT,
                assertThrows(CmiAccessException.class, () -> connections.get(at, 1, 0)).accessError());
            home.answerHellos = true;
            RemoteConnection last = connections.get(at, 1, 0);
            assertNotSame(null, last);
            assertEquals(List.of(new Hello(1, 0), new Hello(2, 1), new Hello(3, 2), new Hello(4, 2), new Hello(5, 2)),
                home.hellos);
            assertEquals(5, last.number());
        }
    }
}
