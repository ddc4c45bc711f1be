package io.softcmi.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.cmi.internal.NodeAddressImpl;
import io.softcmi.wire.DataProtocol;
import io.softcmi.wire.SegmentFileLayout;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A remote writer's context ends while bytes it sent before it died are still in the home's
 * socket: the home's I/O loop may read the header of a streamed store only after the engine took
 * the writer's stores in flight ({@link FailureEvents#contextEnded}). Whatever the order, no
 * byte of a torn store may land outside the ranges put in flux, and nothing may stay charged to
 * the ended writer in {@link WritesInFlight} (nobody would ever take it). No timing: the order is
 * forced (the context ends before the loop serves anything), or raced by two threads and the
 * outcome checked, whichever order came.
 */
class TornAfterContextEndTest {
    private static final byte[] HOME = id(1);
    private static final byte[] WRITER_NODE = id(2);
    private static final long CONTEXT = 77;
    private static final long SEGMENT = 5;
    private static final long TOKEN = 9;
    private static final long SECRET_HI = 0x1111;
    private static final long SECRET_LO = 0x2222;
    private static final long SIZE = 1 << 20;
    /** Larger than the connection's input buffer: streamed straight into the mapping. */
    private static final int PAYLOAD = 256 * 1024;
    /** What the writer sends of it before it dies. */
    private static final int SENT = 100 * 1024;
    private static final byte MARK = 0x5A;

    private final List<AutoCloseable> open = new ArrayList<>();
    private Arena arena;
    private NodeState state;
    private MemorySegment data;

    private static byte[] id(int b) {
        byte[] id = new byte[NodeAddressImpl.ID_LENGTH];
        Arrays.fill(id, (byte) b);
        return id;
    }

    private void setUp() {
        arena = Arena.ofShared();
        state = new NodeState(new NodeConfig(), new NodeAddressImpl(HOME, "", 0), null);
        MemorySegment whole = arena.allocate(SegmentFileLayout.HEADER_SIZE + SIZE, 4096);
        RemoteTarget target = new RemoteTarget(SEGMENT, SIZE, false, whole);
        data = target.data;
        state.targets.put(SEGMENT, target);
        state.tokens.put(TOKEN, new HomeToken(TOKEN, SEGMENT, null, 0b111, 0, SIZE, SECRET_HI, SECRET_LO, 1));
        state.segments.put(SEGMENT, new Segment(SEGMENT, SIZE, 0, 1, 1, null, null, SIZE, SIZE));
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : open.reversed()) {
            c.close();
        }
        open.clear();
        if (arena != null) {
            arena.close();
            arena = null;
        }
    }

    /** The writer sent a streamed store's header and part of its payload, then died (its socket closed). */
    private SocketChannel diedMidStore(long bulkEnd) throws IOException {
        ServerSocketChannel server = track(ServerSocketChannel.open());
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        SocketChannel client = track(SocketChannel.open(server.getLocalAddress()));
        SocketChannel home = track(server.accept());
        home.configureBlocking(false);
        ByteBuffer b = ByteBuffer.allocate(DataProtocol.REQUEST_HEADER + SENT).order(ByteOrder.LITTLE_ENDIAN);
        DataProtocol.writeRequest(b, DataProtocol.OP_PUT, 1, SEGMENT, TOKEN, SECRET_HI, SECRET_LO, 0, PAYLOAD, bulkEnd,
            PAYLOAD);
        while (b.hasRemaining()) {
            b.put(MARK);
        }
        b.flip();
        while (b.hasRemaining()) {
            client.write(b);
        }
        client.close();
        return home;
    }

    /** Serves the connection as its I/O loop would, until it closes (the writer's EOF). */
    private void serveUntilClosed(SocketChannel home) throws IOException {
        DataConnection c = new DataConnection(home, null, new DataHandshake.DataClient(WRITER_NODE, CONTEXT),
            new HomeAccess(state), new DataPathStats(), null);
        try (Selector s = Selector.open()) {
            SelectionKey key = home.register(s, SelectionKey.OP_READ);
            c.registered(key, () -> { });
            for (int pass = 0; pass < 10_000; pass++) {
                s.select(1_000);
                s.selectedKeys().clear();
                if (!c.service()) {
                    c.close();
                    return;
                }
            }
            throw new AssertionError("the connection never reached the writer's EOF");
        }
    }

    private void contextEnded() {
        new FailureEvents(state).contextEnded(new NodeAddressImpl(WRITER_NODE, "", 0), CONTEXT, true, List.of(), true);
    }

    /** Every byte of the store that landed lies in flux; nothing stays charged to the ended writer. */
    private void assertNoTornByteOutsideFlux() {
        long landedEnd = 0;
        for (long i = 0; i < PAYLOAD; i++) {
            if (data.get(ValueLayout.JAVA_BYTE, i) == MARK) {
                landedEnd = i + 1;
            }
        }
        FluxRanges f = state.flux.get(SEGMENT);
        if (landedEnd > 0) {
            long[] lowest = f == null ? null : f.lowest(0, landedEnd);
            assertTrue(lowest != null && lowest[0] == 0 && lowest[1] >= landedEnd,
                "bytes [0, " + landedEnd + ") of a torn store landed, in flux: "
                    + (f == null ? "nothing" : Arrays.toString(f.snapshot())));
        }
        assertEquals(List.of(), state.writes.takeFor(WritesInFlight.Writer.of(WRITER_NODE, CONTEXT)),
            "torn ranges left charged to a context that has ended (never to be reported)");
    }

    @Test
    void streamedStoreReadAfterTheContextEndedIsNotTornOutsideFlux() throws Exception {
        setUp();
        SocketChannel home = diedMidStore(0);
        contextEnded(); // the engine hears of the death first
        serveUntilClosed(home); // then the loop reads what the writer sent before it died
        assertNoTornByteOutsideFlux();
    }

    @Test
    void chunkOfABulkStoreReadAfterTheContextEndedIsNotTornOutsideFlux() throws Exception {
        setUp();
        SocketChannel home = diedMidStore(4L * PAYLOAD);
        contextEnded();
        serveUntilClosed(home);
        assertNoTornByteOutsideFlux();
    }

    @Test
    void storeServedBeforeTheContextEndedIsInFlux() throws Exception {
        setUp();
        SocketChannel home = diedMidStore(0);
        serveUntilClosed(home); // torn at the EOF, charged to the writer
        contextEnded(); // which then turns out to have died
        assertNoTornByteOutsideFlux();
        FluxRanges f = state.flux.get(SEGMENT);
        assertTrue(f != null && !f.isEmpty(), "the torn store is in flux");
    }

    /** The end and the loop raced, 200 times: whichever came first, the outcome holds. */
    @Test
    void contextEndRacingTheLoop() throws Exception {
        List<String> failures = new ArrayList<>();
        for (int round = 0; round < 200; round++) {
            setUp();
            SocketChannel home = diedMidStore(round % 2 == 0 ? 0 : 4L * PAYLOAD);
            CountDownLatch go = new CountDownLatch(1);
            AtomicReference<Throwable> failed = new AtomicReference<>();
            Thread loop = Thread.ofPlatform().start(() -> {
                try {
                    go.await();
                    serveUntilClosed(home);
                } catch (Throwable t) {
                    failed.set(t);
                }
            });
            go.countDown();
            contextEnded();
            loop.join();
            if (failed.get() != null) {
                throw new AssertionError("round " + round, failed.get());
            }
            try {
                assertNoTornByteOutsideFlux();
            } catch (AssertionError e) {
                failures.add(round + ": " + e.getMessage());
            }
            close();
        }
        assertEquals(0, failures.size(), failures.size() + " of 200 rounds failed, first: "
            + failures.subList(0, Math.min(3, failures.size())));
    }

    private <T extends AutoCloseable> T track(T c) {
        open.add(c);
        return c;
    }
}
