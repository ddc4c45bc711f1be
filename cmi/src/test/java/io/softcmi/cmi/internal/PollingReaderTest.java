package io.softcmi.cmi.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.wire.Frame;
import io.softcmi.wire.FrameIO;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link PollingReader} reads ahead: one system call takes what the socket holds, so a frame's
 * length and body cost one read; frames larger than its buffer and frames split over several
 * writes still come whole. Over a loopback TCP pair (whose receive queue the test can see).
 */
class PollingReaderTest {
    private static final Duration BOUND = Duration.ofSeconds(20);

    @Test
    void shouldTakeWhatTheSocketHoldsInOneRead() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
                SocketChannel writer = SocketChannel.open(server.getLocalAddress());
                SocketChannel ch = server.accept()) {
            ch.configureBlocking(false);
            PollingReader in = new PollingReader(ch, Thread::onSpinWait);
            writer.write(ByteBuffer.wrap(new byte[100]));
            assertTimeoutPreemptively(BOUND, () -> {
                while (ch.socket().getInputStream().available() < 100) {
                    Thread.onSpinWait();
                }
                assertEquals(4, in.read(ByteBuffer.allocate(4)));
                assertEquals(0, ch.socket().getInputStream().available(), "the rest was read ahead in the same call");
                assertEquals(96, in.read(ByteBuffer.allocate(200)), "and is served from the buffer");
            });
        }
    }

    @Test
    void shouldRefuseASocketInBlockingMode() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
                SocketChannel writer = SocketChannel.open(server.getLocalAddress());
                SocketChannel ch = server.accept()) {
            assertTrue(writer.isConnected() && ch.isBlocking());
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> new PollingReader(ch, Thread::onSpinWait));
            assertEquals("the socket must be in non-blocking mode", e.getMessage());
        }
    }

    @Test
    void shouldReadSmallLargeAndSplitFramesWhole() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
                SocketChannel writer = SocketChannel.open(server.getLocalAddress());
                SocketChannel ch = server.accept()) {
            ch.configureBlocking(false);
            PollingReader in = new PollingReader(ch, Thread::onSpinWait);
            byte[] small = {1, 2, 3};
            byte[] large = new byte[5 * PollingReader.BUFFER_BYTES + 7];
            for (int i = 0; i < large.length; i++) {
                large[i] = (byte) (i * 31);
            }
            ByteBuffer two = ByteBuffer.allocate(64 + large.length);
            two.put(FrameIO.encode(new Frame(1, 0, 7, small))).put(FrameIO.encode(new Frame(2, 0, 8, large))).flip();
            assertTimeoutPreemptively(BOUND, () -> {
                ByteBuffer split = two.duplicate();
                split.limit(10); // a frame split inside its header
                writer.write(split);
                Thread.ofPlatform().start(() -> {
                    try {
                        Thread.sleep(20);
                        ByteBuffer rest = two.duplicate().position(10);
                        while (rest.hasRemaining()) {
                            writer.write(rest);
                        }
                        writer.shutdownOutput();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                Frame a = FrameIO.read(in);
                Frame b = FrameIO.read(in);
                assertEquals(7, a.correlationId());
                assertArrayEquals(small, a.payload());
                assertEquals(8, b.correlationId());
                assertArrayEquals(large, b.payload());
                assertNull(FrameIO.read(in), "clean end of stream between frames");
            });
        }
    }

    /**
     * While traffic lasts (data within {@link PollBudget#TRAFFIC_NANOS}), a reader polls
     * whatever its hit rate says: otherwise a daemon session whose rate fell parks after every
     * request, and its process's polls then miss too. Over a Unix-domain socket pair whose data
     * comes only when the reader waits (its {@code ReadyWait} writes it, late), so every poll misses.
     */
    @Test
    void shouldPollWhileTrafficLastsWhateverTheHitRate() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(PollBudget.enabled(), "polling is off in this JVM");
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("softcmi-polling-reader");
        java.nio.file.Path path = dir.resolve("s");
        try (ServerSocketChannel server = ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX)
                .bind(java.net.UnixDomainSocketAddress.of(path));
                SocketChannel writer = SocketChannel.open(java.net.UnixDomainSocketAddress.of(path));
                SocketChannel ch = server.accept()) {
            ch.configureBlocking(false);
            // Data 1 ms after the reader blocks: later than a poll, so no wait counts as a hit.
            PollingReader in = new PollingReader(ch, () -> {
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                writer.write(ByteBuffer.wrap(new byte[] {1}));
            });
            java.util.function.Supplier<PollBudget.LoadSample> machine = PollBudget.runnableSource;
            PollBudget.runnableSource = () -> new PollBudget.LoadSample(0.1, 1); // no thread waits for a core
            try {
                for (int i = 0; i < 20; i++) {
                    PollBudget.sampleRunnable();
                }
                readRightAfterDataPolls(in);
            } finally {
                PollBudget.runnableSource = machine;
            }
        } finally {
            java.nio.file.Files.deleteIfExists(path);
            java.nio.file.Files.deleteIfExists(dir);
        }
    }

    private static void readRightAfterDataPolls(PollingReader in) {
        assertTimeoutPreemptively(BOUND, () -> {
            for (int i = 0; i < 8; i++) { // no traffic: each read polls (while the rate allows) and misses
                Thread.sleep(2);
                assertEquals(1, in.read(ByteBuffer.allocate(1)));
            }
            Thread.sleep(2);
            long before = in.polls();
            assertEquals(1, in.read(ByteBuffer.allocate(1)));
            assertEquals(before, in.polls(), "the misses lowered the hit rate: an idle reader blocks at once");
            for (int i = 0; i < 3; i++) { // right after data: polls (three tries, in case this thread was preempted)
                assertEquals(1, in.read(ByteBuffer.allocate(1)));
            }
            org.junit.jupiter.api.Assertions.assertTrue(in.polls() > before, "a read right after data did not poll");
        });
    }
}
