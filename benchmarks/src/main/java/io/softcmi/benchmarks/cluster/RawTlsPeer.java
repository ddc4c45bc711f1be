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
import java.util.Locale;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSocket;

/**
 * The machine's TLS limit, measured in the same run as softcmi over TLS: a raw stream of the
 * JDK's own TLS with softcmi's key store, protocol and cipher suites ({@link ClusterTls}), 1 MiB
 * chunks each acknowledged by one byte as the plain raw stream's ({@link RawTcpPeer} {@code sink}),
 * in two ways: the JDK's {@link SSLSocket} as a program would use it ({@code socket}: a system
 * call per 16 KiB record each way), and an {@link SSLEngine} over a blocking socket with heap
 * buffers and four records per write ({@code engine}, {@link RawTlsEngine}). Both ends run in
 * processes of their own ({@link #measure} starts them): in the benchmark's process the JDK's TLS
 * code would be compiled for two users, the raw stream and softcmi, and slow the one timed later.
 *
 * <pre>
 * RawTlsPeer socket|engine KEYSTORE PASSWORD_FILE CHUNK_BYTES
 *     accepts one connection, reads chunks, answers one byte after each; prints "PORT n" when listening
 * RawTlsPeer client socket|engine KEYSTORE PASSWORD_FILE CHUNK_BYTES PORT WARM_UP_CHUNKS CHUNKS
 *     sends WARM_UP_CHUNKS (and more for 6 s), then times CHUNKS; prints "RESULT MiB/s protocol suite"
 * </pre>
 */
public final class RawTlsPeer {
    /**
     * Each stream is warmed up for at least this long, and so are softcmi's TLS bulk transfers:
     * until C2 has compiled the TLS stack AES-GCM runs GHASH in Java ({@code GHASH.blockMult} in a
     * profile) instead of the intrinsic, and on the shared 2-core machine that took seconds (the
     * SSLEngine stream after 2 s of warm-up: 745 MiB/s, after 5000 chunks, about 6 s: 1342 MiB/s,
     * 2026-11-27 18:34 UTC).
     */
    static final long WARM_UP_NANOS = 6_000_000_000L;

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
     * Entry point of either end.
     *
     * @param args as in the class comment
     * @throws IOException if the key store or the socket fails
     */
    public static void main(String[] args) throws IOException {
        boolean client = args[0].equals("client");
        int at = client ? 1 : 0;
        String mode = args[at];
        ClusterTls tls = ClusterTls.fromKeyStore(Path.of(args[at + 1]),
            Files.readAllLines(Path.of(args[at + 2])).getFirst().toCharArray());
        int chunk = Integer.parseInt(args[at + 3]);
        if (client) {
            ClusterTls trusting = ClusterTls.forClient(tls.trust());
            int port = Integer.parseInt(args[5]);
            int warmUp = Integer.parseInt(args[6]);
            int chunks = Integer.parseInt(args[7]);
            Result r = mode.equals("engine") ? engineClient(trusting, port, chunk, warmUp, chunks)
                : socketClient(trusting, port, chunk, warmUp, chunks);
            System.out.println(String.format(Locale.ROOT, "RESULT %.1f %s %s", r.mibPerSecond(), r.protocol(),
                r.cipherSuite()));
        } else if (mode.equals("engine")) {
            engineSink(tls, chunk);
        } else {
            socketSink(tls, chunk);
        }
    }

    /**
     * Starts both ends of one raw TLS stream and returns what the client end measured.
     *
     * @param children where both processes are registered (to be stopped by the caller)
     * @param mode {@code socket} or {@code engine}
     * @param keyStore the daemons' key store
     * @param passwordFile its password file
     * @param chunk bytes per chunk
     * @param warmUp chunks sent before the timed ones (and more until {@link #WARM_UP_NANOS} passed)
     * @param chunks chunks timed
     * @return the rate and what was negotiated
     * @throws IOException if either end fails
     */
    static Result measure(List<Process> children, String mode, Path keyStore, Path passwordFile, int chunk, int warmUp,
            int chunks) throws IOException {
        String name = RawTlsPeer.class.getName();
        int port = ChildProcesses.childPort(children, name, mode, keyStore.toString(), passwordFile.toString(),
            Integer.toString(chunk));
        String[] result = new String[1];
        children.add(ChildProcesses.start(l -> {
            if (l.startsWith("RESULT ")) {
                result[0] = l;
                return true;
            }
            return false;
        }, List.of(), name, "client", mode, keyStore.toString(), passwordFile.toString(), Integer.toString(chunk),
            Integer.toString(port), Integer.toString(warmUp), Integer.toString(chunks)));
        String[] f = result[0].split(" ");
        return new Result(Double.parseDouble(f[1]), f[2], f[3]);
    }

    private static void socketSink(ClusterTls tls, int chunk) throws IOException {
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

    private static Result socketClient(ClusterTls tls, int port, int chunk, int warmUp, int chunks) throws IOException {
        Socket plain = new Socket();
        plain.connect(new InetSocketAddress("127.0.0.1", port));
        try (SSLSocket s = open(tls, plain, true)) {
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[chunk];
            double mibs = time(chunk, warmUp, chunks, () -> {
                out.write(buf);
                out.flush();
                if (in.read() < 0) {
                    throw new IOException("raw TLS peer closed the stream");
                }
            });
            return new Result(mibs, s.getSession().getProtocol(), s.getSession().getCipherSuite());
        }
    }

    private static void engineSink(ClusterTls tls, int chunk) throws IOException {
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress("127.0.0.1", 0));
            System.out.println("PORT " + ((InetSocketAddress) server.getLocalAddress()).getPort());
            System.out.flush();
            try (SocketChannel ch = server.accept()) {
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                RawTlsEngine e = new RawTlsEngine(ch, tls.newEngine(false), chunk);
                e.handshake();
                ByteBuffer in = ByteBuffer.allocateDirect(chunk + 2 * 16384); // room for the last record's estimate
                ByteBuffer ack = ByteBuffer.allocate(1);
                while (true) {
                    in.clear();
                    e.receive(in, chunk);
                    e.send(ack.clear());
                }
            } catch (IOException done) {
                // the client is done (end of stream, or its close_notify)
            }
        }
    }

    private static Result engineClient(ClusterTls tls, int port, int chunk, int warmUp, int chunks) throws IOException {
        try (SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", port))) {
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            SSLEngine engine = tls.newEngine(true);
            RawTlsEngine e = new RawTlsEngine(ch, engine, chunk);
            e.handshake();
            ByteBuffer buf = ByteBuffer.allocateDirect(chunk);
            ByteBuffer ack = ByteBuffer.allocate(1 + 2 * 16384);
            double mibs = time(chunk, warmUp, chunks, () -> {
                e.send(buf.clear());
                e.receive(ack.clear(), 1);
            });
            return new Result(mibs, engine.getSession().getProtocol(), engine.getSession().getCipherSuite());
        }
    }

    /** One chunk sent and acknowledged. */
    private interface Chunk {
        void send() throws IOException;
    }

    /** @return MiB/s of {@code chunks} chunks, timed after the warm-up */
    private static double time(int chunk, int warmUp, int chunks, Chunk c) throws IOException {
        long warm = System.nanoTime();
        for (int i = 0; i < warmUp || System.nanoTime() - warm < WARM_UP_NANOS; i++) {
            c.send();
        }
        long t0 = System.nanoTime();
        for (int i = 0; i < chunks; i++) {
            c.send();
        }
        return (double) chunks * chunk / (1 << 20) / ((System.nanoTime() - t0) / 1e9);
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
