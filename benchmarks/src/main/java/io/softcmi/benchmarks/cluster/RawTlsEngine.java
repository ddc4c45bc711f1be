package io.softcmi.benchmarks.cluster;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;

/**
 * A raw TLS stream written the straightforward efficient way with the JDK's {@link SSLEngine}
 * over a blocking socket, independent of softcmi's {@code TlsChannel}: a chunk is encrypted into
 * a heap buffer (the JDK's AES-GCM runs its intrinsic over a record only between heap buffers)
 * and sent a few records per write; the reader takes what the socket has and decrypts each
 * record straight into the chunk. The limit {@link RawTlsPeer} measures with it.
 */
final class RawTlsEngine {
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
    /** Records encrypted per socket write: 64 KiB. */
    static final int BATCH = 4;
    private final SocketChannel ch;
    private final SSLEngine engine;
    private final ByteBuffer netOut;
    /** Encrypted bytes read, not yet decrypted (read mode). */
    private final ByteBuffer netIn;
    private final ByteBuffer scratch;

    /**
     * @param ch a connected blocking socket
     * @param engine an engine in client or server mode, not yet handshaking
     * @param chunk the largest write
     */
    RawTlsEngine(SocketChannel ch, SSLEngine engine, int chunk) {
        this.ch = ch;
        this.engine = engine;
        int packet = engine.getSession().getPacketBufferSize();
        this.netOut = ByteBuffer.allocate(BATCH * packet);
        this.netIn = ByteBuffer.allocate((chunk / 16384 + 2) * packet).flip();
        this.scratch = ByteBuffer.allocate(engine.getSession().getApplicationBufferSize());
    }

    /** Runs the handshake (blocking). */
    void handshake() throws IOException {
        engine.beginHandshake();
        while (true) {
            switch (engine.getHandshakeStatus()) {
                case NEED_TASK -> {
                    Runnable t;
                    while ((t = engine.getDelegatedTask()) != null) {
                        t.run();
                    }
                }
                case NEED_WRAP -> send(EMPTY);
                case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
                    scratch.clear();
                    if (engine.unwrap(netIn, scratch).getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW) {
                        readMore();
                    }
                }
                default -> {
                    return;
                }
            }
        }
    }

    /**
     * Encrypts all of {@code src} and writes it, {@link #BATCH} records per (blocking) write: the
     * receiver decrypts a batch while the next one is encrypted.
     */
    void send(ByteBuffer src) throws IOException {
        do {
            netOut.clear();
            for (int i = 0; i < BATCH; i++) {
                SSLEngineResult r = engine.wrap(src, netOut);
                if (r.getStatus() != SSLEngineResult.Status.OK) {
                    throw new SSLException("wrap: " + r.getStatus());
                }
                if (!src.hasRemaining()) {
                    break;
                }
            }
            netOut.flip();
            while (netOut.hasRemaining()) {
                ch.write(netOut);
            }
        } while (src.hasRemaining());
    }

    /** Reads until {@code dst} is full (its room must end on a record boundary of the sender's, plus a record's slack). */
    void receive(ByteBuffer dst, int bytes) throws IOException {
        int end = dst.position() + bytes;
        while (dst.position() < end) {
            SSLEngineResult r = engine.unwrap(netIn, dst);
            switch (r.getStatus()) {
                case OK -> { }
                case BUFFER_UNDERFLOW -> readMore();
                default -> throw new SSLException("unwrap: " + r.getStatus());
            }
        }
    }

    private void readMore() throws IOException {
        netIn.compact();
        try {
            if (ch.read(netIn) < 0) {
                throw new EOFException("raw TLS peer closed the stream");
            }
        } finally {
            netIn.flip();
        }
    }
}
