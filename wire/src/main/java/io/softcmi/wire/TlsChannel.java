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
 *   <li>A read may leave decrypted bytes, or whole encrypted records, inside this channel that
 *       the selector does not see: call {@link #hasBufferedInput()} before waiting for the socket.</li>
 *   <li>A non-blocking write may accept bytes that are not on the wire yet: call {@link #flush()}
 *       until it returns true before waiting for replies (or wait for the socket to be writable).</li>
 * </ul>
 * One thread may read while another writes (as {@link SSLEngine} allows); reads are serialized
 * among themselves, and so are writes.
 *
 * <p>Bulk data. The encrypted side's buffers are <em>heap</em> buffers of {@link #NET_BUFFER}
 * bytes, several records each: the JDK's AES-GCM runs its intrinsic over a whole record only when
 * both buffers are heap arrays, while with direct buffers it copies 512 bytes at a time into
 * scratch arrays and back (com.sun.crypto.provider.GaloisCounterMode.GCMEngine#implGCMCrypt), at
 * less than half the speed (measured on one core, 16 KiB records: 2490-3030 MiB/s direct, 5830-6040
 * MiB/s heap). A write encrypts as many 16 KiB records as the buffer holds and sends them in one
 * system call; a read takes as many records as the socket has in one system call and decrypts
 * each straight into the caller's buffer when it has room for the whole record (else through a
 * record-sized buffer).
 */
public final class TlsChannel implements ByteChannel, GatheringByteChannel {
    /**
     * Size of the encrypted input and output buffers: four TLS records of 16 KiB (with their
     * headers and tags), so a bulk transfer costs a system call per 64 KiB instead of per record,
     * while the receiver still decrypts one batch as the sender encrypts the next. 2, 8 and 16
     * records measured no better (docs/benchmarks.md, "TLS bulk transfers").
     */
    static final int NET_BUFFER = 4 * (16 * 1024 + 256);
    private final SocketChannel net;
    private final SSLEngine engine;
    private final ReentrantLock readLock = new ReentrantLock();
    private final ReentrantLock writeLock = new ReentrantLock();
    /** The largest TLS record this session sends or receives, with its header and tag. */
    private final int packetSize;
    /** Encrypted bytes read from the socket, not yet decrypted (read mode: position..limit). */
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
        this.packetSize = engine.getSession().getPacketBufferSize();
        int app = engine.getSession().getApplicationBufferSize();
        int size = Math.max(NET_BUFFER, packetSize);
        this.netIn = ByteBuffer.allocate(size).flip();
        this.appIn = ByteBuffer.allocate(app).flip();
        this.netOut = ByteBuffer.allocate(size).flip();
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
                        SSLEngineResult r = unwrapToAppIn();
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

    /** Decrypts one record of {@link #netIn} into {@link #appIn}, after what it holds. */
    private SSLEngineResult unwrapToAppIn() throws SSLException {
        appIn.compact();
        try {
            return engine.unwrap(netIn, appIn);
        } finally {
            appIn.flip();
        }
    }

    private void awaitNetInput(Selector selector, long deadlineNanos) throws IOException {
        int n = readNet();
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

    /**
     * One socket read into {@link #netIn}, after the encrypted bytes it holds (moved to its start
     * first when the room behind them is short of a record: at most a record's part is moved).
     *
     * @return bytes read, 0, or -1 at end of stream
     */
    private int readNet() throws IOException {
        int start;
        if (!netIn.hasRemaining() || netIn.capacity() - netIn.limit() < packetSize) {
            netIn.compact();
            start = 0;
        } else {
            start = netIn.position();
            netIn.position(netIn.limit()).limit(netIn.capacity());
        }
        try {
            return net.read(netIn);
        } finally {
            netIn.limit(netIn.position()).position(start);
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
        return appIn.hasRemaining() || completeRecord() > 0;
    }

    /** @return the length of the encrypted record at the start of {@link #netIn} if all of it is there, else 0 */
    private int completeRecord() {
        // The array, not the buffer's checked get: hasBufferedInput may be asked while a read
        // moves the buffer's bounds, and then answers wrongly at worst, without throwing.
        byte[] bytes = netIn.array();
        int p = netIn.position();
        int have = netIn.limit() - p;
        if (have < RECORD_HEADER || p + RECORD_HEADER > bytes.length) {
            return 0;
        }
        int length = RECORD_HEADER + (((bytes[p + 3] & 0xff) << 8) | (bytes[p + 4] & 0xff));
        return have >= length ? length : 0;
    }

    /**
     * Reads decrypted bytes: as many as {@code dst} holds and the socket has (like a plain
     * socket read), but in blocking mode it blocks only until the first bytes are in. A
     * non-blocking read reads the socket at most once more after it ran out of whole records.
     */
    @Override
    public int read(ByteBuffer dst) throws IOException {
        readLock.lock();
        try {
            int total = 0;
            boolean readSocket = false;
            while (dst.hasRemaining()) {
                if (appIn.hasRemaining()) {
                    int n = Math.min(dst.remaining(), appIn.remaining());
                    dst.put(appIn.slice(appIn.position(), n));
                    appIn.position(appIn.position() + n);
                    total += n;
                    continue;
                }
                if (inboundClosed) {
                    return total > 0 ? total : -1;
                }
                int before = dst.position();
                SSLEngineResult.Status status = unwrapInto(dst);
                total += dst.position() - before;
                if (status == SSLEngineResult.Status.OK) {
                    continue; // a record was decrypted (perhaps one without data: a session ticket, a key update)
                }
                if (status == SSLEngineResult.Status.CLOSED) {
                    inboundClosed = true;
                    return total > 0 ? total : -1;
                }
                // Underflow: the next record is not all here.
                boolean blocking = net.isBlocking();
                if (blocking ? total > 0 : readSocket) {
                    return total; // a blocking read does not wait once it has bytes; a non-blocking one reads once
                }
                int n = readNet();
                if (n < 0) {
                    inboundClosed = true;
                    return total > 0 ? total : -1;
                }
                if (n == 0) {
                    return total;
                }
                // A socket read that filled the buffer may have left more in the socket: one more then.
                readSocket = !blocking && netIn.limit() < netIn.capacity();
            }
            return total;
        } finally {
            readLock.unlock();
        }
    }

    /**
     * Decrypts the next record of {@link #netIn}: straight into {@code dst} when it has room for
     * the whole record (no copy through this channel), else into {@link #appIn} (empty when called).
     *
     * @return OK (a record was decrypted), CLOSED, or BUFFER_UNDERFLOW (no whole record here)
     */
    private SSLEngineResult.Status unwrapInto(ByteBuffer dst) throws IOException {
        if (!netIn.hasRemaining() && engine.getHandshakeStatus() != SSLEngineResult.HandshakeStatus.NEED_WRAP) {
            return SSLEngineResult.Status.BUFFER_UNDERFLOW; // nothing to decrypt: spare the engine the call
        }
        int record = completeRecord();
        SSLEngineResult r = null;
        if (record > 0 && dst.remaining() >= record) { // a record's data is shorter than the record
            r = engine.unwrap(netIn, dst);
            if (r.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
                r = null; // the engine's estimate is its own: decrypt through appIn
            }
        }
        if (r == null) {
            r = unwrapToAppIn();
        }
        if (r.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_TASK) {
            runTasks();
        }
        if (r.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_WRAP
                || engine.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_WRAP) {
            answerHandshake(); // a key update, or a close_notify to answer
        }
        return switch (r.getStatus()) {
            case OK, CLOSED, BUFFER_UNDERFLOW -> r.getStatus();
            case BUFFER_OVERFLOW -> throw new SSLException("TLS record larger than the session's buffer");
        };
    }

    /** Produces what the engine wants to send outside of application data, and tries to send it. */
    private void answerHandshake() throws IOException {
        writeLock.lock();
        try {
            while (engine.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_WRAP) {
                if (wrap(EMPTY).getStatus() != SSLEngineResult.Status.OK) {
                    break; // closed, or no room behind unsent records: the next write sends it
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
     * Encrypts and sends: as many records as the output buffer holds, then one socket write for
     * all of them. In blocking mode everything is sent before it returns; in non-blocking mode it
     * goes on while the socket takes them: the last records taken may still wait inside, and
     * {@link #flush()} sends them.
     */
    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        writeLock.lock();
        try {
            long total = 0;
            while (true) {
                while (hasRemaining(srcs, offset, length) && roomForRecord()) {
                    SSLEngineResult r = wrap(srcs, offset, length);
                    if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
                        throw new ClosedChannelException();
                    }
                    if (r.getStatus() != SSLEngineResult.Status.OK) {
                        throw new SSLException("TLS record larger than the session's buffer: " + r.getStatus());
                    }
                    total += r.bytesConsumed();
                }
                if (!flushSome() && !net.isBlocking()) {
                    return total;
                }
                if (!hasRemaining(srcs, offset, length)) {
                    return total;
                }
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

    /** @return whether {@link #netOut} has room for a whole record after what waits in it (moving that first if needed) */
    private boolean roomForRecord() {
        if (!netOut.hasRemaining()) {
            netOut.clear().flip();
        } else if (netOut.capacity() - netOut.limit() < packetSize) {
            netOut.compact().flip();
        }
        return netOut.capacity() - netOut.limit() >= packetSize;
    }

    private SSLEngineResult wrap(ByteBuffer src) throws IOException {
        roomForRecord();
        return wrap(new ByteBuffer[] {src}, 0, 1);
    }

    /** Encrypts one record into {@link #netOut}, after the bytes waiting there. */
    private SSLEngineResult wrap(ByteBuffer[] srcs, int offset, int length) throws IOException {
        int pending = netOut.position();
        netOut.position(netOut.limit()).limit(netOut.capacity());
        SSLEngineResult r;
        try {
            r = engine.wrap(srcs, offset, length, netOut);
        } finally {
            netOut.flip();
            netOut.position(pending);
        }
        if (r.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_TASK) {
            runTasks();
        }
        return r;
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
