package io.softcmi.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TlsChannel} over loopback: a blocking server end and a non-blocking client end (as the
 * home's handshake thread and a process's data connection use them), a megabyte each way, an
 * untrusted certificate and a plain client.
 */
@Timeout(120)
class TlsChannelTest {
    private static final char[] PASSWORD = "tls-test-password".toCharArray();
    @TempDir
    static Path dir;
    private static ClusterTls server;
    private static ClusterTls stranger;

    @BeforeAll
    static void keyStores() throws Exception {
        server = ClusterTls.fromKeyStore(keyStore("cluster"), PASSWORD);
        stranger = ClusterTls.fromKeyStore(keyStore("stranger"), PASSWORD);
    }

    private static Path keyStore(String name) throws Exception {
        Path ks = dir.resolve(name + ".p12");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
            "-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + name,
            "-validity", "2", "-storetype", "PKCS12", "-keystore", ks.toString(), "-storepass", new String(PASSWORD),
            "-keypass", new String(PASSWORD)).redirectErrorStream(true).redirectOutput(dir.resolve(name + ".log").toFile())
            .start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue());
        return ks;
    }

    /** Accepts one connection and runs the server end on another thread: echoes {@code bytes} back. */
    private static CompletableFuture<byte[]> echoServer(ServerSocketChannel listener, int bytes) {
        return CompletableFuture.supplyAsync(() -> {
            try (SocketChannel s = listener.accept(); TlsChannel tls = new TlsChannel(s, server.newEngine(false))) {
                tls.handshake(null, System.nanoTime() + TimeUnit.SECONDS.toNanos(30));
                ByteBuffer got = ByteBuffer.allocate(bytes);
                while (got.hasRemaining()) {
                    if (tls.read(got) < 0) {
                        throw new IOException("client hung up after " + got.position() + " bytes");
                    }
                }
                got.flip();
                tls.write(got.duplicate());
                return got.array();
            } catch (IOException e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        });
    }

    @Test
    void shouldCarryAMegabyteEachWayBetweenABlockingServerAndANonBlockingClient() throws Exception {
        int size = 1 << 20;
        byte[] data = new byte[size];
        new Random(7).nextBytes(data);
        try (ServerSocketChannel listener = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            CompletableFuture<byte[]> received = echoServer(listener, size);
            try (SocketChannel s = SocketChannel.open(listener.getLocalAddress()); Selector sel = Selector.open()) {
                s.configureBlocking(false);
                SelectionKey key = s.register(sel, SelectionKey.OP_READ);
                TlsChannel tls = new TlsChannel(s, ClusterTls.forClient(server.trust()).newEngine(true));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                tls.handshake(sel, deadline);
                ByteBuffer out = ByteBuffer.wrap(data);
                while (out.hasRemaining() || !tls.flush()) {
                    if (out.hasRemaining() && tls.write(out) > 0) {
                        continue;
                    }
                    key.interestOps(SelectionKey.OP_WRITE);
                    sel.select(100);
                    sel.selectedKeys().clear();
                    assertTrue(System.nanoTime() < deadline, "sending timed out");
                }
                key.interestOps(SelectionKey.OP_READ);
                ByteBuffer in = ByteBuffer.allocate(size);
                int reads = 0;
                while (in.hasRemaining()) {
                    // Small reads leave decrypted bytes inside the channel: it must say so.
                    ByteBuffer part = in.slice(in.position(), Math.min(in.remaining(), 1000));
                    int n = tls.read(part);
                    assertTrue(n >= 0, "server hung up");
                    in.position(in.position() + n);
                    reads++;
                    if (n == 0 && !tls.hasBufferedInput()) {
                        sel.select(100);
                        sel.selectedKeys().clear();
                    }
                    assertTrue(System.nanoTime() < deadline, "receiving timed out");
                }
                assertArrayEquals(data, received.get(30, TimeUnit.SECONDS), "what the server read");
                assertArrayEquals(data, in.array(), "what the server echoed");
                assertTrue(reads >= size / 1000, "read in small parts");
                assertFalse(tls.hasBufferedInput(), "nothing left over");
                tls.close();
            }
        }
    }

    @Test
    void shouldFailTheHandshakeWithACertificateTheClientDoesNotTrust() throws Exception {
        try (ServerSocketChannel listener = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            CompletableFuture<byte[]> serverEnd = echoServer(listener, 1);
            try (SocketChannel s = SocketChannel.open(listener.getLocalAddress())) {
                TlsChannel tls = new TlsChannel(s, ClusterTls.forClient(stranger.trust()).newEngine(true));
                assertThrows(SSLException.class, () -> tls.handshake(null, System.nanoTime() + TimeUnit.SECONDS.toNanos(30)));
            }
            assertThrows(Exception.class, () -> serverEnd.get(30, TimeUnit.SECONDS));
        }
    }

    @Test
    void shouldFailTheServerHandshakeWhenTheClientSpeaksPlainBytes() throws Exception {
        try (ServerSocketChannel listener = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            CompletableFuture<byte[]> serverEnd = echoServer(listener, 1);
            try (SocketChannel s = SocketChannel.open(listener.getLocalAddress())) {
                s.write(ByteBuffer.wrap("HELLO, plain text here, no TLS at all".getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
                java.util.concurrent.ExecutionException e = assertThrows(java.util.concurrent.ExecutionException.class,
                    () -> serverEnd.get(30, TimeUnit.SECONDS));
                assertTrue(e.getCause() instanceof SSLException || e.getCause().getCause() instanceof SSLException,
                    () -> "cause: " + e.getCause());
            }
        }
    }

    @Test
    void shouldRefuseAKeyStoreWithoutAPrivateKeyOrWithTheWrongPassword() throws Exception {
        IOException wrong = assertThrows(IOException.class,
            () -> ClusterTls.fromKeyStore(dir.resolve("cluster.p12"), "wrong".toCharArray()));
        assertTrue(wrong.getMessage().contains("cluster.p12"), wrong::getMessage);
        assertThrows(IOException.class, () -> ClusterTls.forClient(new byte[] {0, 0, 0, 1, 0, 0, 0, 9, 1}));
    }

    /** What the server end of a test does with its channel, in blocking mode after the handshake. */
    private interface ServerEnd {
        byte[] run(TlsChannel tls) throws IOException;
    }

    /** Accepts one connection and runs {@code end} on it on another thread, then closes the channel. */
    private static CompletableFuture<byte[]> server(ServerSocketChannel listener, ServerEnd end) {
        return CompletableFuture.supplyAsync(() -> {
            try (SocketChannel s = listener.accept(); TlsChannel tls = new TlsChannel(s, server.newEngine(false))) {
                tls.handshake(null, System.nanoTime() + TimeUnit.SECONDS.toNanos(30));
                return end.run(tls);
            } catch (IOException e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        });
    }

    /** A connected non-blocking client end, handshake done. */
    private static TlsChannel client(SocketChannel s, Selector sel) throws IOException {
        s.configureBlocking(false);
        s.register(sel, SelectionKey.OP_READ);
        TlsChannel tls = new TlsChannel(s, ClusterTls.forClient(server.trust()).newEngine(true));
        tls.handshake(sel, System.nanoTime() + TimeUnit.SECONDS.toNanos(30));
        return tls;
    }

    /** Reads until {@code dst} is full, waiting in the selector only when the channel holds nothing. */
    private static void readFully(TlsChannel tls, Selector sel, ByteBuffer dst) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (dst.hasRemaining()) {
            int n = tls.read(dst);
            assertTrue(n >= 0, "server hung up");
            if (n == 0 && !tls.hasBufferedInput()) {
                sel.select(100);
                sel.selectedKeys().clear();
            }
            assertTrue(System.nanoTime() < deadline, "receiving timed out");
        }
    }

    private static byte[] random(int size, long seed) {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void shouldCarryAGatheringWriteOfManyRecordsByteExactIntoADirectBuffer() throws Exception {
        byte[] head = random(32, 1);
        byte[] body = random((1 << 20) + 13, 2); // 65 records and a part: several output batches
        byte[] tail = random(7, 3);
        int total = head.length + body.length + tail.length;
        try (ServerSocketChannel listener = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            CompletableFuture<byte[]> received = server(listener, tls -> {
                // Direct and as large as the whole message: records are decrypted straight into it.
                ByteBuffer got = ByteBuffer.allocateDirect(total);
                while (got.hasRemaining()) {
                    if (tls.read(got) < 0) {
                        throw new IOException("client hung up after " + got.position() + " bytes");
                    }
                }
                byte[] out = new byte[total];
                got.flip().get(out);
                return out;
            });
            try (SocketChannel s = SocketChannel.open(listener.getLocalAddress()); Selector sel = Selector.open()) {
                TlsChannel tls = client(s, sel);
                ByteBuffer direct = ByteBuffer.allocateDirect(body.length).put(body).flip();
                ByteBuffer[] parts = {ByteBuffer.wrap(head), direct, ByteBuffer.wrap(tail)};
                long written = 0;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (written < total || !tls.flush()) {
                    long n = written < total ? tls.write(parts) : 0;
                    written += n;
                    if (n == 0) {
                        Thread.sleep(1);
                    }
                    assertTrue(System.nanoTime() < deadline, "sending timed out");
                }
                assertEquals(total, written, "bytes the writes accepted");
                ByteBuffer expected = ByteBuffer.allocate(total).put(head).put(body).put(tail);
                assertArrayEquals(expected.array(), received.get(30, TimeUnit.SECONDS), "what the server read");
                tls.close();
            }
        }
    }

    @Test
    void shouldHandARecordOutThroughASmallBufferAndSayWhatItStillHolds() throws Exception {
        byte[] data = random(40_000, 4); // three records
        try (ServerSocketChannel listener = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            CompletableFuture<byte[]> serverEnd = server(listener, tls -> {
                tls.write(ByteBuffer.wrap(data));
                ByteBuffer ack = ByteBuffer.allocate(1);
                while (ack.hasRemaining()) {
                    if (tls.read(ack) < 0) {
                        throw new IOException("client hung up before its ack");
                    }
                }
                return ack.array();
            });
            try (SocketChannel s = SocketChannel.open(listener.getLocalAddress()); Selector sel = Selector.open()) {
                TlsChannel tls = client(s, sel);
                ByteBuffer first = ByteBuffer.allocate(1);
                readFully(tls, sel, first);
                assertTrue(tls.hasBufferedInput(), "the rest of the first record waits inside");
                ByteBuffer rest = ByteBuffer.allocate(data.length - 1);
                readFully(tls, sel, rest);
                assertFalse(tls.hasBufferedInput(), "nothing left over");
                byte[] got = ByteBuffer.allocate(data.length).put(first.flip()).put(rest.flip()).array();
                assertArrayEquals(data, got, "what the server wrote");
                ByteBuffer ack = ByteBuffer.wrap(new byte[] {42});
                while (ack.hasRemaining() || !tls.flush()) {
                    tls.write(ack);
                }
                assertEquals(42, serverEnd.get(30, TimeUnit.SECONDS)[0]);
                tls.close();
            }
        }
    }

    @Test
    void shouldReadEndOfStreamAfterTheDataOfAPeerThatClosed() throws Exception {
        byte[] data = random(100_000, 5);
        try (ServerSocketChannel listener = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            CompletableFuture<byte[]> serverEnd = server(listener, tls -> {
                tls.write(ByteBuffer.wrap(data));
                return data; // then closed, with close_notify
            });
            try (SocketChannel s = SocketChannel.open(listener.getLocalAddress()); Selector sel = Selector.open()) {
                TlsChannel tls = client(s, sel);
                ByteBuffer got = ByteBuffer.allocate(data.length);
                readFully(tls, sel, got);
                assertArrayEquals(data, got.array());
                serverEnd.get(30, TimeUnit.SECONDS);
                s.configureBlocking(false);
                ByteBuffer more = ByteBuffer.allocate(16);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                int n;
                while ((n = tls.read(more)) == 0) {
                    sel.select(100);
                    sel.selectedKeys().clear();
                    assertTrue(System.nanoTime() < deadline, "no end of stream");
                }
                assertEquals(-1, n, "end of stream after the data");
                assertEquals(-1, tls.read(more), "and again");
                tls.close();
            }
        }
    }
}
