package io.softcmi.cmi.internal;

import io.softcmi.wire.DataProtocol;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * A home node for tests of {@link RemoteConnection}: a blocking server on loopback that answers
 * HELLO, GET (with {@code a} bytes, each its offset's low byte; 8-byte loads get {@link #VALUE})
 * and PUT (status 0), one request at a time, writing each reply whole before it reads the next
 * request (so, like the real home, it stops reading while the client does not take its
 * replies). After HELLO it can stop answering ({@link Mode#SILENT}: reads, never replies) or stop
 * reading ({@link Mode#DEAF}); in {@link Mode#ANSWER} it can also keep reading and hold its
 * replies until the test lets them go ({@link #holdReplies}, {@link #releaseReplies}). It records
 * the requests it read after HELLO ({@link #requests}).
 */
final class FakeHome implements AutoCloseable {
    /** The value of every 8-byte load. */
    static final long VALUE = 0x1122334455667788L;

    /** What the home does after HELLO. */
    enum Mode { ANSWER, SILENT, DEAF }

    private final ServerSocketChannel server;
    private final Mode mode;
    private final Thread thread;
    private volatile SocketChannel client;

    /** Whether the home reads by polling its socket (as a daemon's I/O loop does while traffic lasts), not blocking. */
    private final boolean spin;
    /** How long the home waits before each reply after the HELLO's. */
    private volatile long replyDelayNanos;
    /** Replies held back ({@link #holdReplies}), in order; null while replies are written at once. Under {@link #replyLock}. */
    private java.util.List<ByteBuffer> held;
    private final Object replyLock = new Object();
    /** The requests read after HELLO, in order: {@code "<op> <offset>"}. */
    private final java.util.concurrent.ConcurrentLinkedQueue<String> requests = new java.util.concurrent.ConcurrentLinkedQueue<>();

    FakeHome(Mode mode) throws IOException {
        this(mode, false);
    }

    /**
     * @param mode how it answers
     * @param spin whether it polls its socket for requests (replies within microseconds) instead of blocking in {@code read}
     */
    FakeHome(Mode mode, boolean spin) throws IOException {
        this.mode = mode;
        this.spin = spin;
        this.server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
        this.thread = Thread.ofPlatform().daemon().name("fake-home").start(this::serve);
    }

    /** Delays each later reply by {@code delay} (zero: answer at once). */
    void answerAfter(java.time.Duration delay) {
        replyDelayNanos = delay.toNanos();
    }

    /** Keeps reading requests, but holds every later reply until {@link #releaseReplies}. */
    void holdReplies() {
        synchronized (replyLock) {
            if (held == null) {
                held = new java.util.ArrayList<>();
            }
        }
    }

    /** Writes the replies held so far, in order, and answers at once again. */
    void releaseReplies() throws IOException {
        synchronized (replyLock) {
            java.util.List<ByteBuffer> replies = held;
            held = null;
            if (replies != null) {
                for (ByteBuffer reply : replies) {
                    writeAll(client, reply);
                }
            }
        }
    }

    /** @return the requests read after HELLO so far, in order: the op's name and the request's offset */
    java.util.List<String> requests() {
        return java.util.List.copyOf(requests);
    }

    NodeAddressImpl address() throws IOException {
        return new NodeAddressImpl(new byte[NodeAddressImpl.ID_LENGTH], "127.0.0.1",
            ((InetSocketAddress) server.getLocalAddress()).getPort());
    }

    static TokenImpl token() {
        return new TokenImpl(new byte[NodeAddressImpl.ID_LENGTH], 1, 1, new byte[NodeAddressImpl.ID_LENGTH],
            new byte[TokenImpl.SECRET_LENGTH]);
    }

    private void serve() {
        try (SocketChannel ch = server.accept()) {
            client = ch;
            read(ch, ByteBuffer.allocate(1)); // 'D'
            if (spin) {
                ch.configureBlocking(false);
            }
            ByteBuffer header = ByteBuffer.allocate(DataProtocol.REQUEST_HEADER).order(ByteOrder.LITTLE_ENDIAN);
            boolean hello = true;
            while (true) {
                if (!hello && mode == Mode.DEAF) {
                    Thread.sleep(Long.MAX_VALUE);
                }
                header.clear();
                read(ch, header);
                int payload = DataProtocol.requestPayload(header.getInt(0));
                read(ch, ByteBuffer.allocate(payload));
                byte op = header.get(4);
                long id = header.getLong(8);
                long offset = header.getLong(48);
                long a = header.getLong(56);
                if (!hello) {
                    requests.add(opName(op) + " " + offset);
                }
                if (!hello && mode == Mode.SILENT) {
                    continue;
                }
                hello = false;
                int n = op == DataProtocol.OP_GET ? (int) a : 0;
                ByteBuffer reply = ByteBuffer.allocate(DataProtocol.REPLY_HEADER + n).order(ByteOrder.LITTLE_ENDIAN);
                DataProtocol.writeReply(reply, (byte) 0, id, 0, n);
                if (n == 8) {
                    reply.putLong(VALUE);
                } else {
                    for (int i = 0; i < n; i++) {
                        reply.put((byte) (offset + i));
                    }
                }
                reply.flip();
                long delay = replyDelayNanos;
                if (delay > 0) {
                    Thread.sleep(delay / 1_000_000, (int) (delay % 1_000_000));
                }
                synchronized (replyLock) {
                    if (held != null) {
                        held.add(reply);
                    } else {
                        writeAll(ch, reply);
                    }
                }
            }
        } catch (IOException | InterruptedException e) {
            // The client went away or the test ended.
        }
    }

    private static void writeAll(SocketChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }

    private static String opName(byte op) {
        return switch (op) {
            case DataProtocol.OP_GET -> "GET";
            case DataProtocol.OP_PUT -> "PUT";
            case DataProtocol.OP_NOTIFY -> "NOTIFY";
            default -> "OP" + op;
        };
    }

    private static void read(SocketChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            int n = ch.read(b);
            if (n < 0) {
                throw new java.io.EOFException();
            }
            if (n == 0) {
                Thread.onSpinWait(); // a spinning home's socket in non-blocking mode
            }
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        SocketChannel c = client;
        if (c != null) {
            c.close();
        }
        thread.interrupt();
    }
}
