package io.softcmi.node;

import static io.softcmi.node.RevocationFixture.readReply;
import static io.softcmi.node.RevocationFixture.request;
import static io.softcmi.node.RevocationFixture.writeAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.DataProtocol;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code tok_del} against requests admitted under the token before it (libcmi(3) {@code tok_del};
 * {@link AccessGate}): when its reply is sent, every such request has finished (its bytes landed,
 * or were copied out, its notice queued), and none lands later; a request that waits on a
 * client that stopped is cut after the bound ({@link NodeConfig#revokeDrainMs}). Each request is
 * held inside its apply by something the test controls (the directory's monitor, the creator's
 * notifier, the client's own bytes), so no timing decides the outcome: "tok_del has not
 * replied within 300 ms" is only checked while the test itself still holds the request.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TokDelDrainTest {
    private static final long BOUND_MS = 400;
    private static final byte MARK = 0x5A;
    /** A store larger than the home's input buffer: streamed straight into the mapping. */
    private static final int STREAMED = 256 * 1024;
    private static final int SENT_FIRST = 100 * 1024;
    private RevocationFixture home;

    private RevocationFixture home(long boundMs) throws IOException {
        home = new RevocationFixture(new NodeConfig().revokeDrainMs(boundMs), 1);
        return home;
    }

    @AfterEach
    void close() throws Exception {
        if (home != null) {
            home.close();
        }
    }

    private static void assertOk(ControlMessage reply) {
        assertInstanceOf(ControlMessage.Ok.class, reply, "tok_del's reply");
    }

    private static long marked(MemorySegment data, long from, long to) {
        long n = 0;
        for (long i = from; i < to; i++) {
            if (data.get(ValueLayout.JAVA_BYTE, i) == MARK) {
                n++;
            }
        }
        return n;
    }

    /** The client's end of a streamed store whose head and first bytes were sent. */
    private SocketChannel client;
    /** The whole store, its first part sent: {@code store.limit(store.capacity())} is the rest. */
    private ByteBuffer store;

    /** Sends the head of a streamed store and its first bytes, until they are seen landing in the mapping. */
    private void streamedStoreUnderWay() throws Exception {
        client = home.connect(0, 0);
        store = request(DataProtocol.OP_PUT, 1, 0, STREAMED, 0, STREAMED);
        while (store.hasRemaining()) {
            store.put(MARK);
        }
        writeAll(client, store.flip().limit(DataProtocol.REQUEST_HEADER + SENT_FIRST));
        RevocationFixture.await("the store's first bytes land",
            () -> home.data.get(ValueLayout.JAVA_BYTE, SENT_FIRST - 64) == MARK);
    }

    @Test
    void shouldWaitForAStreamedStoreAdmittedBeforeIt() throws Exception {
        home(5_000);
        streamedStoreUnderWay();
        SocketChannel c = client;
        CompletableFuture<ControlMessage> del = home.tokDelAsync();
        Thread.sleep(300);
        assertFalse(del.isDone(), "tok_del replied while a store admitted before it was still landing");
        writeAll(c, store.limit(store.capacity()));
        assertOk(del.get(10, TimeUnit.SECONDS));
        assertEquals(STREAMED, marked(home.data, 0, STREAMED), "bytes of the store landed when tok_del replied");
        RevocationFixture.Reply r = readReply(c);
        assertNotNull(r);
        assertEquals(DataProtocol.STATUS_OK, r.status(), "the store admitted before the revocation");
        // Later requests are refused, and change nothing.
        ByteBuffer after = request(DataProtocol.OP_PUT, 2, STREAMED, 8, 0, 8).putLong(-1L);
        writeAll(c, after.flip());
        assertEquals(DataProtocol.STATUS_TOKEN, readReply(c).status(), "a store after the revocation");
        assertEquals(0L, home.data.get(ValueLayout.JAVA_LONG, STREAMED));
        writeAll(c, request(DataProtocol.OP_NOTIFY, 3, 0, 7, 0, 0).flip());
        assertEquals(DataProtocol.STATUS_TOKEN, readReply(c).status(), "a notification after the revocation");
        assertTrue(home.notices.isEmpty(), "no notice for a refused notification");
    }

    @Test
    void shouldCutAStreamedStoreWhoseClientStopped() throws Exception {
        home(BOUND_MS);
        streamedStoreUnderWay();
        SocketChannel c = client;
        long start = System.nanoTime();
        assertOk(home.tokDel());
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        long landed = marked(home.data, 0, STREAMED);
        // The client sends the rest now: the home must take none of it.
        try {
            writeAll(c, store.limit(store.capacity()));
        } catch (IOException | AssertionError closed) {
            // the home closed the connection: what it was sent is not read
        }
        Thread.sleep(200);
        assertEquals(landed, marked(home.data, 0, STREAMED), "bytes landed after tok_del replied");
        assertTrue(landed < STREAMED, "the store stopped short");
        assertTrue(tookMs >= BOUND_MS - 50 && tookMs < 10 * BOUND_MS, "tok_del took " + tookMs + " ms, bound " + BOUND_MS);
        assertEndOfStream(c);
    }

    /** The client sees its connection closed (end of stream or reset), within 10 s. */
    private static void assertEndOfStream(SocketChannel c) throws Exception {
        ByteBuffer sink = ByteBuffer.allocate(64 * 1024);
        long deadline = System.nanoTime() + 10_000_000_000L;
        try {
            while (c.read(sink.clear()) >= 0) {
                assertTrue(System.nanoTime() - deadline < 0, "the home never closed the cut connection");
                Thread.sleep(1);
            }
        } catch (IOException reset) {
            // closed with requests unread: a reset
        }
    }

    @Test
    void shouldCutALargeReadWhoseClientDoesNotReadAndSendNothingWrittenAfter() throws Exception {
        home(BOUND_MS);
        // Small socket buffers on both sides: the first reply stalls with most of it unsent.
        int length = 256 * 1024;
        SocketChannel c = home.connect(16 * 1024, 16 * 1024);
        for (int i = 0; i < 4; i++) {
            writeAll(c, request(DataProtocol.OP_GET, 1 + i, 0, length, 0, 0).flip());
        }
        // The first bytes of the first reply: the loop admitted that read and now waits for the socket.
        ByteBuffer sink = ByteBuffer.allocate(64 * 1024);
        long received = 0;
        for (long until = System.nanoTime() + 10_000_000_000L; received == 0; Thread.onSpinWait()) {
            int n = c.read(sink.clear());
            assertTrue(n >= 0 && System.nanoTime() - until < 0, "no reply in 10 s");
            received += n;
        }
        long start = System.nanoTime();
        assertOk(home.tokDel());
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        // The creator writes the segment after the revocation: none of it may reach the revoked reader.
        home.data.asSlice(0, length).fill(MARK);
        long markedBytes = 0;
        long deadline = System.nanoTime() + 20_000_000_000L;
        try {
            for (int n; markedBytes == 0 && (n = c.read(sink.clear())) >= 0; ) {
                for (int i = 0; i < n; i++) {
                    markedBytes += sink.get(i) == MARK ? 1 : 0;
                }
                received += n;
                assertTrue(System.nanoTime() - deadline < 0, "the reads went on for 20 s after tok_del");
                if (n == 0) {
                    Thread.sleep(1);
                }
            }
        } catch (IOException reset) {
            // the cut connection
        }
        assertEquals(0, markedBytes, "bytes written after tok_del replied were sent to the revoked reader (of "
            + received + " received)");
        assertTrue(received < 4L * length, "the reads were cut short: " + received);
        assertTrue(tookMs >= BOUND_MS - 50, "tok_del took " + tookMs + " ms, bound " + BOUND_MS);
    }

    @Test
    void shouldWaitForAStoreHeldInsideItsApply() throws Exception {
        home(5_000);
        SocketChannel c = home.connect(0, 0);
        Object directory = home.state.coherence.monitor(RevocationFixture.SEGMENT, true);
        CompletableFuture<ControlMessage> del;
        synchronized (directory) { // a store while the segment is cached copies under this monitor
            ByteBuffer b = request(DataProtocol.OP_PUT, 1, 4096, 64, 0, 64);
            while (b.hasRemaining()) {
                b.put(MARK);
            }
            writeAll(c, b.flip());
            RevocationFixture.await("the store waits for the directory", RevocationFixture::loopBlocked);
            del = home.tokDelAsync();
            Thread.sleep(300);
            assertFalse(del.isDone(), "tok_del replied while a store admitted before it had not landed");
        }
        assertOk(del.get(10, TimeUnit.SECONDS));
        assertEquals(64, marked(home.data, 4096, 4096 + 64), "bytes of the store landed when tok_del replied");
        assertEquals(DataProtocol.STATUS_OK, readReply(c).status());
    }

    @Test
    void shouldWaitForANotificationUntilItsNoticeIsQueued() throws Exception {
        home(5_000);
        SocketChannel c = home.connect(0, 0);
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        home.onNotice = n -> {
            inside.countDown();
            try {
                release.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        CompletableFuture<ControlMessage> del;
        try {
            writeAll(c, request(DataProtocol.OP_NOTIFY, 1, 8, 42, 0, 0).flip());
            assertTrue(inside.await(10, TimeUnit.SECONDS), "the notification reaches the creator's queue");
            del = home.tokDelAsync();
            Thread.sleep(300);
            assertFalse(del.isDone(), "tok_del replied before the notice of a notification admitted before it was queued");
        } finally {
            release.countDown();
        }
        assertOk(del.get(10, TimeUnit.SECONDS));
        assertEquals(1, home.notices.size(), "notices queued when tok_del replied");
        assertEquals(42, ((ControlMessage.NotificationNotice) home.notices.get(0)).value());
        assertEquals(DataProtocol.STATUS_OK, readReply(c).status());
    }

    @Test
    void shouldReplyAtOnceWithNothingInFlight() throws Exception {
        home(5_000);
        SocketChannel c = home.connect(0, 0);
        writeAll(c, request(DataProtocol.OP_PUT, 1, 0, 8, 0, 8).putLong(7).flip());
        assertEquals(DataProtocol.STATUS_OK, readReply(c).status());
        long start = System.nanoTime();
        assertOk(home.tokDel());
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(1), "tok_del with nothing in flight");
        assertInstanceOf(ControlMessage.ErrorReply.class, home.tokDel(), "a second tok_del of the same token");
    }
}
