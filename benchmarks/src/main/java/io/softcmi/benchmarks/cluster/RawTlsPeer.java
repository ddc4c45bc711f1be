package io.softcmi.benchmarks.cluster;

import io.softcmi.wire.ClusterTls;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSocket;

/**
 * The machine's TLS limit, measured in the same run as softcmi over TLS: a raw stream of the
 * JDK's own TLS with softcmi's key store, protocol and cipher suites ({@link ClusterTls}), 1 MiB
 * chunks each acknowledged by one byte as the plain raw stream's ({@link RawTcpPeer} {@code sink}),
 * in two ways: the JDK's {@link SSLSocket} as a program would use it ({@code socket}: a system
 * call per 16 KiB record each way), and an {@link SSLEngine} over a blocking socket that encrypts
 * a chunk whole and sends it in one write ({@code engine}, {@link RawTlsEngine}). This class is
 * both ends: {@link #stream} is the client, and {@link #main} the other end, in its own process.
 *
 * <pre>
 * RawTlsPeer socket|engine KEYSTORE PASSWORD_FILE CHUNK_BYTES   accepts one connection, reads chunks, answers one byte after each
 * </pre>
 * Prints "PORT n" when listening on 127.0.0.1.
 */
public final class RawTlsPeer {
    /**
     * Each stream is warmed up for at least this long: the other end is a fresh JVM, and until C2
     * has compiled its TLS stack its AES-GCM runs GHASH in Java ({@code GHASH.blockMult} in a
     * profile) instead of the intrinsic. softcmi's daemons are warm by the time they are timed.
     */
    private static final long WARM_UP_NANOS = 2_000_000_000L;

    private RawTlsPeer() {
    }

    /**
     * What one raw TLS stream measured.
     *
     * @param mibPerSecond the timed chunks' rate
     * @param protocol the negotiated protocol
     * @param cipherSuite the negotiated cipher suite
     */
    record Result(double mibPerSecond, String protocol, String cipherSuite) {
    }

    /**
     * Entry point of the other end.
     *
     * @param args key store, password file, chunk size
     * @throws IOException if the key store or the socket fails
     */
    public static void main(String[] args) throws IOException {
        ClusterTls tls = ClusterTls.fromKeyStore(Path.of(args[1]),
            Files.readAllLines(Path.of(args[2])).getFirst().toCharArray());
        int chunk = Integer.parseInt(args[3]);
        if (args[0].equals("engine")) {
            engineSink(tls, chunk);
            return;
        }
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            System.out.println("PORT " + server.getLocalPort());
            System.out.flush();
            try (SSLSocket s = open(tls, server.accept(), false)) {
                InputStream in = s.getInputStream();
                OutputStream out = s.getOutputStream();
                byte[] buf = new byte[chunk];
                while (true) {
                    for (int got = 0; got < chunk; ) {
                        int n = in.read(buf, got, chunk - got);
                        if (n < 0) {
                            return;
                        }
                        got += n;
                    }
                    out.write(1);
                    out.flush();
                }
            }
        }
    }

    private static void engineSink(ClusterTls tls, int chunk) throws IOException {
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress("127.0.0.1", 0));
            System.out.println("PORT " + ((InetSocketAddress) server.getLocalAddress()).getPort());
            System.out.flush();
            try (SocketChannel ch = server.accept()) {
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                RawTlsEngine e = new RawTlsEngine(ch, engine(tls, false), chunk);
                e.handshake();
                ByteBuffer in = ByteBuffer.allocateDirect(chunk + 2 * 16384); // room for the last record's estimate
                ByteBuffer ack = ByteBuffer.allocate(1);
                while (true) {
                    in.clear();
                    e.receive(in, chunk);
                    e.send(ack.clear());
                }
            } catch (java.io.EOFException done) {
                // the client is done
            }
        }
    }

    private static SSLEngine engine(ClusterTls tls, boolean client) {
        return tls.newEngine(client);
    }

    /**
     * The client end over an {@link SSLEngine} ({@link RawTlsEngine}): as {@link #stream}.
     *
     * @throws IOException if either end fails
     */
    static Result engineStream(List<Process> children, Path keyStore, Path passwordFile, int chunk, int warmUp,
            int chunks) throws IOException {
        int port = ChildProcesses.childPort(children, RawTlsPeer.class.getName(), "engine", keyStore.toString(),
            passwordFile.toString(), Integer.toString(chunk));
        ClusterTls client = clientTls(keyStore, passwordFile);
        try (SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", port))) {
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            SSLEngine engine = engine(client, true);
            RawTlsEngine e = new RawTlsEngine(ch, engine, chunk);
            e.handshake();
            ByteBuffer buf = ByteBuffer.allocateDirect(chunk);
            ByteBuffer ack = ByteBuffer.allocate(1 + 2 * 16384);
            long warm = System.nanoTime();
            for (int i = 0; i < warmUp || System.nanoTime() - warm < WARM_UP_NANOS; i++) {
                e.send(buf.clear());
                e.receive(ack.clear(), 1);
            }
            long t0 = System.nanoTime();
            for (int i = 0; i < chunks; i++) {
                e.send(buf.clear());
                e.receive(ack.clear(), 1);
            }
            double mibs = (double) chunks * chunk / (1 << 20) / ((System.nanoTime() - t0) / 1e9);
            return new Result(mibs, engine.getSession().getProtocol(), engine.getSession().getCipherSuite());
        }
    }

    private static ClusterTls clientTls(Path keyStore, Path passwordFile) throws IOException {
        return ClusterTls.forClient(ClusterTls.fromKeyStore(keyStore,
            Files.readAllLines(passwordFile).getFirst().toCharArray()).trust());
    }

    /**
     * The client end over an {@link SSLSocket}: starts the other end, sends {@code warmUp}
     * chunks (and goes on for {@link #WARM_UP_NANOS}), then times {@code chunks}.
     *
     * @param children where the other end's process is registered (to be stopped by the caller)
     * @param keyStore the daemons' key store
     * @param passwordFile its password file
     * @param chunk bytes per chunk
     * @return the rate and what was negotiated
     * @throws IOException if either end fails
     */
    static Result stream(List<Process> children, Path keyStore, Path passwordFile, int chunk, int warmUp, int chunks)
            throws IOException {
        int port = ChildProcesses.childPort(children, RawTlsPeer.class.getName(), "socket", keyStore.toString(),
            passwordFile.toString(), Integer.toString(chunk));
        ClusterTls client = clientTls(keyStore, passwordFile);
        Socket plain = new Socket();
        plain.connect(new InetSocketAddress("127.0.0.1", port));
        try (SSLSocket s = open(client, plain, true)) {
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[chunk];
            long warm = System.nanoTime();
            for (int i = 0; i < warmUp || System.nanoTime() - warm < WARM_UP_NANOS; i++) {
                sendChunk(out, in, buf);
            }
            long t0 = System.nanoTime();
            for (int i = 0; i < chunks; i++) {
                sendChunk(out, in, buf);
            }
            double mibs = (double) chunks * chunk / (1 << 20) / ((System.nanoTime() - t0) / 1e9);
            return new Result(mibs, s.getSession().getProtocol(), s.getSession().getCipherSuite());
        }
    }

    private static void sendChunk(OutputStream out, InputStream in, byte[] buf) throws IOException {
        out.write(buf);
        out.flush();
        if (in.read() < 0) {
            throw new IOException("raw TLS peer closed the stream");
        }
    }

    /** Layers TLS over a connected socket, limited to what softcmi's connections use, and shakes hands. */
    private static SSLSocket open(ClusterTls tls, Socket plain, boolean client) throws IOException {
        plain.setTcpNoDelay(true);
        SSLSocket s = (SSLSocket) tls.socketFactory().createSocket(plain, "127.0.0.1", plain.getPort(), true);
        s.setUseClientMode(client);
        s.setEnabledProtocols(ClusterTls.protocols());
        s.setEnabledCipherSuites(ClusterTls.cipherSuites());
        s.startHandshake();
        return s;
    }

    /**
     * @return the JVM's AES and AVX settings (the AES, AES-CTR and GHASH intrinsics that AES-GCM's
     *         speed rests on are diagnostic flags: {@code -XX:+UnlockDiagnosticVMOptions -XX:+PrintFlagsFinal})
     */
    static String aesIntrinsics() {
        var vm = ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
        return "UseAES=" + vm.getVMOption("UseAES").getValue() + " UseAVX=" + vm.getVMOption("UseAVX").getValue();
    }
}
