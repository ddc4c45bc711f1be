package io.softcmi.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.wire.ControlMessage;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The writer's side of the notification back-pressure: a {@link SessionWriter#whenBelow} waiter is
 * called back, once, by the thread that writes the backlog down to its line, or by the close.
 */
@Timeout(60)
class SessionWriterTest {
    private UnixSocketPair pair;
    private ControlPoller poller;
    private SessionWriter writer;

    @BeforeEach
    void connect() throws IOException {
        pair = UnixSocketPair.open();
        // Small buffers: the socket is full after a few notices.
        pair.accepted().setOption(java.net.StandardSocketOptions.SO_SNDBUF, 4096);
        pair.client().setOption(java.net.StandardSocketOptions.SO_RCVBUF, 4096);
        poller = new ControlPoller();
        writer = new SessionWriter(pair.accepted(), poller);
    }

    @AfterEach
    void close() throws IOException {
        writer.close();
        poller.close();
        pair.close();
    }

    private static ControlMessage notice(long value) {
        return new ControlMessage.NotificationNotice(1, 0, value, new byte[16]);
    }

    /** Sends notices the process does not read until at least {@code backlog} are unwritten (bounded). */
    private void fill(int backlog) {
        for (int i = 0; i < SessionWriter.MAX_PENDING - 1 && writer.pending() < backlog; i++) {
            writer.send(notice(i));
        }
        assertTrue(writer.pending() >= backlog, "the socket is full and notices wait: " + writer.pending());
    }

    @Test
    void shouldCallAWaiterBackOnceTheProcessReadsTheBacklogDown() throws Exception {
        fill(100);
        CountDownLatch resumed = new CountDownLatch(1);
        AtomicInteger runs = new AtomicInteger();
        assertTrue(writer.whenBelow(10, () -> {
            runs.incrementAndGet();
            resumed.countDown();
        }), "registered: the backlog is above the line");
        assertFalse(resumed.await(100, TimeUnit.MILLISECONDS), "not while the process reads nothing");

        ByteBuffer sink = ByteBuffer.allocate(64 * 1024);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        SocketChannel process = pair.client();
        process.configureBlocking(false);
        while (resumed.getCount() > 0 && System.nanoTime() < deadline) {
            sink.clear();
            if (process.read(sink) == 0) {
                Thread.sleep(1);
            }
        }
        assertTrue(resumed.await(0, TimeUnit.SECONDS), "called back once the process read: backlog " + writer.pending());
        assertTrue(writer.pending() <= 10);
        Thread.sleep(50);
        assertEquals(1, runs.get(), "once");
    }

    @Test
    void shouldNotRegisterBelowTheLineAndCallEveryWaiterBackOnClose() throws Exception {
        assertFalse(writer.whenBelow(10, () -> { throw new AssertionError("not registered"); }), "nothing unwritten");
        fill(100);
        CountDownLatch resumed = new CountDownLatch(1);
        assertTrue(writer.whenBelow(0, resumed::countDown));
        writer.close();
        assertTrue(resumed.await(10, TimeUnit.SECONDS), "a closed writer never drains: its waiters run at the close");
        assertFalse(writer.whenBelow(0, () -> { throw new AssertionError("not registered"); }), "closed");
    }
}
