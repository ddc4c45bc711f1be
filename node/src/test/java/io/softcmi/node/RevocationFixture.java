package io.softcmi.node;

import io.softcmi.cmi.internal.NodeAddressImpl;
import io.softcmi.cmi.internal.TokenImpl;
import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.DataProtocol;
import io.softcmi.wire.SegmentFileLayout;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * A home node for the revocation tests ({@code tok_del} against requests in flight): an engine
 * with one exported segment of {@link #SIZE} bytes and one token for any node, made by the
 * {@link #creator} session; real data-path I/O loops serving real loopback connections; and the
 * creator's notices, recorded (and, when a test sets {@link #onNotice}, held up inside the
 * delivery, which stands for a request held inside its apply). Uses only what the engine had
 * before the drain of {@code tok_del} ({@link NodeEngine#handle}), so the tests run against both.
 */
final class RevocationFixture implements AutoCloseable {
    static final byte[] HOME = id(1);
    static final byte[] CLIENT = id(2);
    static final long SEGMENT = 5;
    static final long TOKEN = 9;
    static final long SECRET_HI = 0x1111_2222_3333_4444L;
    static final long SECRET_LO = 0x5555_6666_7777_8888L;
    static final long SIZE = 4 << 20;
    static final String LOOP_NAME = "revocation-test-loop-";

    final Arena arena = Arena.ofShared();
    final NodeEngine engine;
    final NodeState state;
    final MemorySegment data;
    final Session creator;
    /** The notices queued to the creator, in order. */
    final List<ControlMessage> notices = new CopyOnWriteArrayList<>();
    /** Runs inside each delivery to the creator, before the notice counts as queued (the loop's thread). */
    volatile Consumer<ControlMessage> onNotice = n -> { };
    private final DataIoLoop[] loops;
    private final DataPathStats stats = new DataPathStats();
    private final ServerSocketChannel server;
    private final List<SocketChannel> channels = new ArrayList<>();
    private int next;

    private static byte[] id(int b) {
        byte[] id = new byte[NodeAddressImpl.ID_LENGTH];
        Arrays.fill(id, (byte) b);
        return id;
    }

    /**
     * @param config the node's configuration
     * @param loopCount data-path I/O loops; connections are spread over them in turn
     */
    RevocationFixture(NodeConfig config, int loopCount) throws IOException {
        engine = new NodeEngine(config, new NodeAddressImpl(HOME, "", 0), null);
        state = engine.state();
        MemorySegment whole = arena.allocate(SegmentFileLayout.HEADER_SIZE + SIZE, 4096);
        RemoteTarget target = new RemoteTarget(SEGMENT, SIZE, false, whole);
        data = target.data;
        state.targets.put(SEGMENT, target);
        creator = new Session(1, 1, "test", "creator", 1, new Session.Notifier() {
            @Override
            public void send(ControlMessage notice) {
                onNotice.accept(notice);
                notices.add(notice);
            }

            @Override
            public void sendNow(ControlMessage notice) {
                send(notice);
            }
        });
        state.sessions.put(creator.id, creator);
        state.tokens.put(TOKEN, new HomeToken(TOKEN, SEGMENT, null, 0b111, 0, SIZE, SECRET_HI, SECRET_LO, creator.id));
        state.notifications.register(SEGMENT, creator);
        loops = new DataIoLoop[loopCount];
        for (int i = 0; i < loopCount; i++) {
            loops[i] = new DataIoLoop(LOOP_NAME + i, stats);
            loops[i].start();
        }
        server = ServerSocketChannel.open();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    /**
     * Opens a client connection, served by the next loop.
     *
     * @param homeSendBuffer the home side's socket send buffer (0: the system's)
     * @param clientReceiveBuffer the client side's socket receive buffer (0: the system's)
     * @return the client's channel, non-blocking
     */
    SocketChannel connect(int homeSendBuffer, int clientReceiveBuffer) throws IOException {
        SocketChannel client = SocketChannel.open();
        channels.add(client);
        if (clientReceiveBuffer > 0) {
            client.setOption(StandardSocketOptions.SO_RCVBUF, clientReceiveBuffer);
        }
        client.connect(server.getLocalAddress());
        SocketChannel home = server.accept();
        channels.add(home);
        if (homeSendBuffer > 0) {
            home.setOption(StandardSocketOptions.SO_SNDBUF, homeSendBuffer);
        }
        client.setOption(StandardSocketOptions.TCP_NODELAY, true);
        client.configureBlocking(false);
        loops[next++ % loops.length].adopt(new DataConnection(home, null, new DataHandshake.DataClient(CLIENT, 77),
            new HomeAccess(state), stats, null));
        return client;
    }

    /** @return the encoded token, as its creator holds it */
    static byte[] tokenBytes() {
        byte[] secret = ByteBuffer.allocate(TokenImpl.SECRET_LENGTH).putLong(SECRET_HI).putLong(SECRET_LO).array();
        return new TokenImpl(HOME, SEGMENT, TOKEN, new byte[NodeAddressImpl.ID_LENGTH], secret).toBytes();
    }

    /** {@code tok_del} by the creator, as its control connection would ask it. @return the reply */
    ControlMessage tokDel() {
        return engine.handle(creator, new ControlMessage.TokDel(tokenBytes()));
    }

    /** {@link #tokDel()} on a thread of its own. */
    CompletableFuture<ControlMessage> tokDelAsync() {
        CompletableFuture<ControlMessage> f = new CompletableFuture<>();
        Thread.ofPlatform().name("tok_del").start(() -> {
            try {
                f.complete(tokDel());
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        return f;
    }

    /** @return a request header for this segment and token, positioned after it */
    static ByteBuffer request(byte op, long requestId, long offset, long a, long b, int payload) {
        ByteBuffer buf = ByteBuffer.allocate(DataProtocol.REQUEST_HEADER + payload).order(ByteOrder.LITTLE_ENDIAN);
        DataProtocol.writeRequest(buf, op, requestId, SEGMENT, TOKEN, SECRET_HI, SECRET_LO, offset, a, b, payload);
        return buf;
    }

    /** Writes all of {@code b} (from its position to its limit) within 10 s. */
    static void writeAll(SocketChannel c, ByteBuffer b) throws IOException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (b.hasRemaining()) {
            if (c.write(b) == 0) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("the home did not take a request in 10 s");
                }
                Thread.onSpinWait();
            }
        }
    }

    /** A reply as the client reads it. */
    record Reply(byte status, long requestId, long value, byte[] payload) {
    }

    /**
     * Reads one reply within 10 s.
     *
     * @return the reply, or null at the end of the stream
     */
    static Reply readReply(SocketChannel c) throws IOException {
        ByteBuffer h = ByteBuffer.allocate(DataProtocol.REPLY_HEADER).order(ByteOrder.LITTLE_ENDIAN);
        if (!readFully(c, h)) {
            return null;
        }
        int payload = h.getInt(0) - (DataProtocol.REPLY_HEADER - 4);
        ByteBuffer p = ByteBuffer.allocate(payload);
        if (!readFully(c, p)) {
            return null;
        }
        return new Reply(h.get(4), h.getLong(8), h.getLong(16), p.array());
    }

    private static boolean readFully(SocketChannel c, ByteBuffer b) throws IOException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (b.hasRemaining()) {
            int n = c.read(b);
            if (n < 0) {
                return false;
            }
            if (n == 0) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("no reply in 10 s");
                }
                Thread.onSpinWait();
            }
        }
        return true;
    }

    /** Waits up to 10 s for {@code condition}. */
    static void await(String what, java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(1);
        }
    }

    /** @return whether one of the data-path loops is blocked entering a monitor */
    static boolean loopBlocked() {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith(LOOP_NAME) && t.getState() == Thread.State.BLOCKED) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void close() throws IOException {
        onNotice = n -> { };
        for (DataIoLoop l : loops) {
            l.close();
        }
        for (SocketChannel c : channels) {
            c.close();
        }
        server.close();
        arena.close();
    }
}
