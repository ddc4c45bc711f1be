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
}
