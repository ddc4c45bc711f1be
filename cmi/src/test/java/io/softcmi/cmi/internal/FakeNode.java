package io.softcmi.cmi.internal;

import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.Frame;
import io.softcmi.wire.FrameIO;
import io.softcmi.wire.FrameReader;
import io.softcmi.wire.MessageType;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A stand-in for {@code cmid} on a Unix-domain socket, for tests of {@link NodeChannel}: one
 * connection, served by one thread that polls it (so replies come within microseconds, as from
 * a daemon that polls) and answers every request with a {@link ControlMessage.LongsValue} of 16
 * fields. Notices handed to {@link #notice} are written before the next reply, or at once if no
 * request comes. It may instead answer each request late and with header flags
 * ({@link #FakeNode(long, int)}, {@link #answer}), as a node that had parked or is slow to serve.
 */
final class FakeNode implements AutoCloseable {
    private final Path dir;
    private final ServerSocketChannel server;
    private final Thread thread;
    private final ConcurrentLinkedQueue<ControlMessage> notices = new ConcurrentLinkedQueue<>();
    private volatile boolean stop;
    /** A notice to write just before closing the connection ({@link #noticeAndClose}), or null. */
    private volatile ControlMessage last;
    private volatile long requests;
    private volatile long replyDelayNanos;
    private volatile int replyFlags;
    /** The request whose reply is written as a malformed frame header instead ({@link #garbleReply}), or -1. */
    private volatile long garbled = -1;

    FakeNode() throws IOException {
        this(0, 0);
    }

    /**
     * @param replyDelayNanos how long after a request its reply is written
     * @param replyFlags the header flags of every reply
     */
    FakeNode(long replyDelayNanos, int replyFlags) throws IOException {
        this.replyDelayNanos = replyDelayNanos;
        this.replyFlags = replyFlags;
        dir = Files.createTempDirectory("softcmi-fake-node");
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(dir.resolve(NodeChannel.SOCKET_NAME)));
        thread = Thread.ofPlatform().daemon().name("fake-node").start(this::serve);
    }

    /**
     * Changes how the following requests are answered.
     *
     * @param delayNanos how long after a request its reply is written
     * @param flags the header flags of every reply
     */
    void answer(long delayNanos, int flags) {
        this.replyDelayNanos = delayNanos;
        this.replyFlags = flags;
    }

    /** @return the node directory to connect to */
    Path directory() {
        return dir;
    }

    /** @return requests answered so far */
    long requests() {
        return requests;
    }

    /** Queues a notice (correlation id 0) for the process. */
    void notice(ControlMessage m) {
        notices.add(m);
    }

    /**
     * Writes a malformed frame header (length -1) instead of the reply to the {@code n}-th request
     * (counting from 0), then goes on answering: the process's stream is lost from there.
     */
    void garbleReply(long n) {
        garbled = n;
    }

    /** Writes {@code m} and closes the connection at once after it, as a node that shuts down does. */
    void noticeAndClose(ControlMessage m) {
        last = m;
    }

    private void serve() {
        try (SocketChannel ch = server.accept()) {
            ch.configureBlocking(false);
            FrameReader in = new FrameReader();
            while (!stop) {
                sendNotices(ch);
                ControlMessage end = last;
                if (end != null) {
                    write(ch, MessageType.toFrame(end, 0));
                    return; // closes the connection right behind the notice
                }
                if (in.fill(ch) == 0) {
                    Thread.onSpinWait();
                    continue;
                }
                Frame f;
                while ((f = in.next()) != null) {
                    MessageType.decode(f);
                    sendNotices(ch);
                    long[] v = new long[16];
                    v[0] = f.correlationId();
                    if (replyDelayNanos > 0) {
                        java.util.concurrent.locks.LockSupport.parkNanos(replyDelayNanos);
                    }
                    if (requests == garbled) {
                        requests++;
                        ByteBuffer bad = ByteBuffer.allocate(4).putInt(0, -1);
                        while (bad.hasRemaining()) {
                            ch.write(bad);
                        }
                        continue;
                    }
                    requests++; // before the reply: its caller may look at once
                    write(ch, MessageType.toFrame(new ControlMessage.LongsValue(v), f.correlationId(), replyFlags));
                }
            }
        } catch (IOException e) {
            // The process closed the connection, or the test ended.
        }
    }

    private void sendNotices(SocketChannel ch) throws IOException {
        ControlMessage m;
        while ((m = notices.poll()) != null) {
            write(ch, MessageType.toFrame(m, 0));
        }
    }

    private static void write(SocketChannel ch, Frame f) throws IOException {
        ByteBuffer b = FrameIO.encode(f);
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }

    @Override
    public void close() throws IOException {
        stop = true;
        server.close();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Files.deleteIfExists(dir.resolve(NodeChannel.SOCKET_NAME));
        Files.deleteIfExists(dir);
    }
}
