package io.softcmi.wire;

import java.io.EOFException;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;

/**
 * A data connection's socket with TLS ({@link SSLEngine}) in between, usable where the plain
 * {@link SocketChannel} is: in blocking mode (the home's handshake thread) and in non-blocking
 * mode under a selector (the home's I/O loops, the client's polling reader).
 *
 * <p>Differences from a plain socket that callers must respect:
 * <ul>
 *   <li>A read may leave decrypted bytes inside this channel that the selector does not see:
 *       call {@link #hasBufferedInput()} before waiting for the socket.</li>
 *   <li>A non-blocking write may accept bytes that are not on the wire yet: call {@link #flush()}
 *       until it returns true before waiting for replies (or wait for the socket to be writable).</li>
 * </ul>
 * One thread may read while another writes (as {@link SSLEngine} allows); reads are serialized
 * among themselves, and so are writes.
 */
public final class TlsChannel implements ByteChannel, GatheringByteChannel {
    private final SocketChannel net;
    private final SSLEngine engine;
    private final ReentrantLock readLock = new ReentrantLock();
    private final ReentrantLock writeLock = new ReentrantLock();
    /** Encrypted bytes read from the socket, not yet decrypted (write mode). */
    private final ByteBuffer netIn;
    /** Decrypted bytes not yet handed to a reader (read mode: position..limit). */
    private final ByteBuffer appIn;
    /** Encrypted bytes not yet written to the socket (read mode: position..limit). */
    private final ByteBuffer netOut;
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
    /** A TLS record's header: content type, legacy version, length (RFC 8446 5.1). */
    private static final int RECORD_HEADER = 5;
    private boolean inboundClosed;

    /**
     * @param net a connected socket
     * @param engine an engine in client or server mode, not yet handshaking
     */
    public TlsChannel(SocketChannel net, SSLEngine engine) {
        this.net = net;
        this.engine = engine;
        int packet = engine.getSession().getPacketBufferSize();
        int app = engine.getSession().getApplicationBufferSize();
        this.netIn = ByteBuffer.allocateDirect(packet);
        this.appIn = ByteBuffer.allocateDirect(app).flip();
        this.netOut = ByteBuffer.allocateDirect(packet).flip();
    }

    /** @return the socket underneath (to register with a selector, to close, for addresses) */
    public SocketChannel socket() {
        return net;
    }

    /**
     * Runs the TLS handshake. In blocking mode reads block (the caller bounds them, for example by
     * closing the socket from a watchdog); in non-blocking mode {@code selector}, with the socket
     * registered for reading, bounds each wait by the deadline.
     *
     * @param selector a selector the socket is registered with for OP_READ, or null in blocking mode
     * @param deadlineNanos {@link System#nanoTime()} by which the handshake must be done
     * @throws IOException if the peer hangs up, the deadline passes, or the handshake fails (an
     *         {@link SSLException} names the reason, for example an untrusted certificate)
     */
    public void handshake(Selector selector, long deadlineNanos) throws IOException {
        engine.beginHandshake();
        readLock.lock();
        writeLock.lock();
        try {
            while (true) {
                SSLEngineResult.HandshakeStatus hs = engine.getHandshakeStatus();
                switch (hs) {
                    case NEED_TASK -> runTasks();
                    case NEED_WRAP -> {
                        wrap(EMPTY);
                        flushFully(deadlineNanos);
                    }
                    case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
                        SSLEngineResult r = unwrap();
                        if (r.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW) {
                            awaitNetInput(selector, deadlineNanos);
                        } else if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
                            throw new EOFException("the peer closed the connection during the TLS handshake");
                        }
                    }
                    default -> {
                        flushFully(deadlineNanos);
                        return;
                    }
                }
                if (System.nanoTime() - deadlineNanos > 0) {
                    throw new SocketTimeoutException("TLS handshake did not finish in time");
                }
            }
        } finally {
            writeLock.unlock();
            readLock.unlock();
        }
    }

    /** Decrypts what {@link #netIn} holds into {@link #appIn} (one record at most). */
    private SSLEngineResult unwrap() throws SSLException {
        netIn.flip();
        try {
            return engine.unwrap(netIn, appIn.compact());
        } finally {
            appIn.flip();
            netIn.compact();
        }
    }

    private void awaitNetInput(Selector selector, long deadlineNanos) throws IOException {
        int n = net.read(netIn);
        if (n < 0) {
            throw new EOFException("the peer closed the connection during the TLS handshake");
        }
        if (n == 0 && selector != null) {
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0) {
                throw new SocketTimeoutException("TLS handshake did not finish in time");
            }
            selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            selector.selectedKeys().clear();
        }
    }

    private void runTasks() {
        Runnable task;
        while ((task = engine.getDelegatedTask()) != null) {
            task.run();
        }
    }

    /**
     * @return true when decrypted bytes, or a whole encrypted record not yet decrypted, wait
     *         inside this channel: a read would return data without the socket. Part of a record
     *         does not count (its rest has to come from the socket, which the selector reports).
     */
    public boolean hasBufferedInput() {
        if (appIn.hasRemaining()) {
            return true;
        }
        int have = netIn.position();
        if (have < RECORD_HEADER) {
            return false;
        }
        int length = ((netIn.get(3) & 0xff) << 8) | (netIn.get(4) & 0xff);
        return have >= RECORD_HEADER + length;
    }

    /**
     * Reads decrypted bytes: as many as {@code dst} holds and the socket has (like a plain
     * socket read), but in blocking mode it blocks only until the first bytes are in.
     */
    @Override
    public int read(ByteBuffer dst) throws IOException {
        readLock.lock();
        try {
            int total = 0;
            while (dst.hasRemaining()) {
                if (!appIn.hasRemaining()) {
                    int status = fillAppIn(total == 0 || !net.isBlocking());
                    if (status <= 0) {
                        return total > 0 ? total : status;
                    }
                }
                int n = Math.min(dst.remaining(), appIn.remaining());
                dst.put(appIn.slice(appIn.position(), n));
                appIn.position(appIn.position() + n);
                total += n;
            }
            return total;
        } finally {
            readLock.unlock();
        }
    }

    /**
     * Decrypts at least one record into {@link #appIn}.
     *
     * @param mayReadSocket whether the socket may be read (a blocking read may wait)
     * @return 1, 0 (nothing complete yet) or -1 (end of stream)
     */
    private int fillAppIn(boolean mayReadSocket) throws IOException {
        if (inboundClosed) {
            return -1;
        }
        boolean readNet = false;
        while (true) {
            SSLEngineResult r = unwrap();
            if (r.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_TASK) {
                runTasks();
            }
            if (r.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_WRAP
                    || engine.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_WRAP) {
                answerHandshake(); // a key update, or a close_notify to answer
            }
            switch (r.getStatus()) {
                case OK -> {
                    if (appIn.hasRemaining()) {
                        return 1;
                    }
                    // A record without data (a session ticket, a key update): go on.
                }
                case CLOSED -> {
                    inboundClosed = true;
                    return -1;
                }
                case BUFFER_OVERFLOW -> throw new SSLException("TLS record larger than the session's buffer");
                case BUFFER_UNDERFLOW -> {
                    if (readNet || !mayReadSocket) {
                        return 0; // one socket read per call, as a plain non-blocking read
                    }
                    int n = net.read(netIn);
                    if (n < 0) {
                        inboundClosed = true;
                        return -1;
                    }
                    if (n == 0) {
                        return 0;
                    }
                    readNet = !net.isBlocking() && netIn.hasRemaining();
                }
            }
        }
    }

    /** Produces what the engine wants to send outside of application data, and tries to send it. */
    private void answerHandshake() throws IOException {
        writeLock.lock();
        try {
            while (engine.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_WRAP) {
                if (wrap(EMPTY).getStatus() == SSLEngineResult.Status.CLOSED) {
                    break;
                }
            }
            flushSome();
        } finally {
            writeLock.unlock();
        }
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        return (int) write(new ByteBuffer[] {src}, 0, 1);
    }

    @Override
    public long write(ByteBuffer[] srcs) throws IOException {
        return write(srcs, 0, srcs.length);
    }

    /**
     * Encrypts and sends. In blocking mode everything is sent before it returns; in non-blocking
     * mode it goes on, a record at a time, while the socket takes them: the last record taken may
     * still wait inside, and {@link #flush()} sends it.
     */
    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        writeLock.lock();
        try {
            long total = 0;
            while (true) {
                if (!flushSome()) {
                    if (!net.isBlocking()) {
                        return total;
                    }
                    continue;
                }
                if (!hasRemaining(srcs, offset, length)) {
                    return total;
                }
                netOut.compact();
                SSLEngineResult r;
                try {
                    r = engine.wrap(srcs, offset, length, netOut);
                } finally {
                    netOut.flip();
                }
                if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
                    throw new ClosedChannelException();
                }
                if (r.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_TASK) {
                    runTasks();
                }
                total += r.bytesConsumed(); // then send it, and go on while the socket takes more
            }
        } finally {
            writeLock.unlock();
        }
    }

    private static boolean hasRemaining(ByteBuffer[] srcs, int offset, int length) {
        for (int i = offset; i < offset + length; i++) {
            if (srcs[i].hasRemaining()) {
                return true;
            }
        }
        return false;
    }

    private SSLEngineResult wrap(ByteBuffer src) throws IOException {
        netOut.compact();
        try {
            SSLEngineResult r = engine.wrap(src, netOut);
            if (r.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_TASK) {
                runTasks();
            }
            return r;
        } finally {
            netOut.flip();
        }
    }

    /** One attempt to send the encrypted bytes waiting. @return true when none wait */
    private boolean flushSome() throws IOException {
        while (netOut.hasRemaining()) {
            if (net.write(netOut) == 0) {
                return false;
            }
        }
        return true;
    }

    private void flushFully(long deadlineNanos) throws IOException {
        while (!flushSome()) {
            if (System.nanoTime() - deadlineNanos > 0) {
                throw new SocketTimeoutException("TLS handshake did not finish in time");
            }
            Thread.onSpinWait();
        }
    }

    /**
     * Sends encrypted bytes that an earlier non-blocking write accepted but could not send.
     *
     * @return true when nothing is left to send
     * @throws IOException if the socket fails
     */
    public boolean flush() throws IOException {
        writeLock.lock();
        try {
            return flushSome();
        } finally {
            writeLock.unlock();
        }
    }

    @Override
    public boolean isOpen() {
        return net.isOpen();
    }

    /** Sends close_notify when the socket takes it at once, then closes the socket. */
    @Override
    public void close() throws IOException {
        try {
            if (writeLock.tryLock()) {
                try {
                    engine.closeOutbound();
                    wrap(EMPTY);
                    if (!net.isBlocking()) {
                        flushSome();
                    }
                } catch (IOException ignored) {
                    // Closing anyway.
                } finally {
                    writeLock.unlock();
                }
            }
        } finally {
            net.close();
        }
    }
}
