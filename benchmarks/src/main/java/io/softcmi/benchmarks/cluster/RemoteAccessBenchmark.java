package io.softcmi.benchmarks.cluster;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.CmiVersion;
import io.softcmi.cmi.RemoteSegmentHandle;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Whole-cluster benchmark of remote access (a program, not a timed test): two {@code cmid}
 * processes on loopback sharing a cluster key; this process imports a segment homed on node 1
 * through node 2 and measures remote 8-byte {@code getLong}, {@code putLong}, {@code atmCas}
 * latency (p50, p99) and 1 MiB bulk put/get bandwidth, against, in the same run, a raw Java TCP
 * ping-pong of the same message sizes with both ends polling non-blocking sockets, and a raw TCP
 * stream of 1 MiB chunks, each against a peer in another process. The segment is exported
 * write-through, so every access is a round trip (the cache has its own {@code CacheBenchmark}).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.softcmi.benchmarks.cluster.RemoteAccessBenchmark [OPS] [BULK_MIB] [--tls]
 * </pre>
 * With {@code --tls} the daemons run with a fresh key store ({@code --tls-keystore}), so every
 * data connection is TLS 1.3: the cost of TLS beside the same raw baselines, and beside the
 * limit TLS itself sets, a raw stream of the JDK's {@code SSLSocket} with the same key store,
 * protocol and cipher suites ({@link RawTlsPeer}), whose negotiated suite is printed.
 */
public final class RemoteAccessBenchmark {
    private static final int REQUEST = 72;
    private static final int REPLY = 32;
    private static final int MIB = 1 << 20;

    private RemoteAccessBenchmark() {
    }

    /**
     * Entry point.
     *
     * @param commandLine OPS (default 50000), BULK_MIB (default 256), and {@code --tls} anywhere
     * @throws Exception if the cluster cannot be set up
     */
    public static void main(String[] commandLine) throws Exception {
        boolean tls = List.of(commandLine).contains("--tls");
        String[] args = java.util.Arrays.stream(commandLine).filter(a -> !a.equals("--tls")).toArray(String[]::new);
        int ops = args.length > 0 ? Integer.parseInt(args[0]) : 50_000;
        int bulk = args.length > 1 ? Integer.parseInt(args[1]) : 256;
        Path dir = Files.createTempDirectory("softcmi-bench-");
        List<Process> children = new ArrayList<>();
        ExecutorService home = Executors.newSingleThreadExecutor();
        ExecutorService remote = Executors.newSingleThreadExecutor();
        try {
            Path key = dir.resolve("cluster.key");
            Files.write(key, java.security.SecureRandom.getInstanceStrong().generateSeed(32));
            Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
            List<String> tlsOptions = tls ? tlsOptions(dir) : List.of();
            for (int n = 1; n <= 2; n++) {
                List<String> cmid = new ArrayList<>(List.of("io.softcmi.node.Cmid", "--dir", dir.resolve("n" + n).toString(),
                    "--listen", "127.0.0.1:0", "--cluster-key", key.toString(), "--name", "bench" + n,
                    "--shm-dir", "/dev/shm/softcmi-bench-" + ProcessHandle.current().pid() + "-" + n));
                cmid.addAll(tlsOptions);
                children.add(ChildProcesses.start(l -> l.startsWith("cmid:"), List.of(), cmid.toArray(String[]::new)));
            }
            if (tls) {
                System.out.println("daemons and data connections use TLS 1.3 (--tls); the raw TCP baselines do not,"
                    + " the raw TLS streams are the JDK's SSLSocket and SSLEngine with the same key store, protocol and suites");
            }
            CmiContext a = home.submit(context(dir.resolve("n1"))).get();
            CmiContext b = remote.submit(context(dir.resolve("n2"))).get();
            byte[][] handles = home.submit(() -> {
                CmiSegment s = a.segGet(4L * MIB, Set.of());
                RemoteSegmentHandle h = a.segExp(s, Set.of(io.softcmi.cmi.ExportAttr.WRITE_THROUGH)); // measure the data path, not the cache
                CmiToken t = a.tokNew(s, b.nodeAddress(), EnumSet.allOf(Access.class));
                return new byte[][] {h.toBytes(), t.toBytes()};
            }).get();
            String report = remote.submit(() -> {
                CmiSegment p = b.segImp(RemoteSegmentHandle.fromBytes(handles[0]));
                b.segSetToken(p, CmiToken.fromBytes(handles[1]));
                b.enable(true);
                CmiMapping m = b.segAt(p, Set.of());
                return measure(b, m, ops, bulk, children, tls ? dir : null);
            }).get();
            System.out.println(report);
            remote.submit(b::fini).get();
            home.submit(a::fini).get();
        } finally {
            home.shutdownNow();
            remote.shutdownNow();
            ChildProcesses.stop(children);
            try (var files = Files.walk(dir)) {
                files.sorted((x, y) -> y.compareTo(x)).forEach(f -> f.toFile().delete());
            }
        }
    }

    /** A PKCS12 key store made with the JDK's keytool, and its password file: the cmid TLS options. */
    private static List<String> tlsOptions(Path dir) throws Exception {
        Path ks = dir.resolve("cluster.p12");
        Path pw = dir.resolve("tls.password");
        Files.writeString(pw, "bench-password");
        Files.setPosixFilePermissions(pw, PosixFilePermissions.fromString("rw-------"));
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(), "-genkeypair",
            "-alias", "bench", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=bench", "-validity", "2",
            "-storetype", "PKCS12", "-keystore", ks.toString(), "-storepass", "bench-password", "-keypass", "bench-password")
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (p.waitFor() != 0) {
            throw new IllegalStateException("keytool failed");
        }
        return List.of("--tls-keystore", ks.toString(), "--tls-password-file", pw.toString());
    }

    private static Callable<CmiContext> context(Path node) {
        return () -> {
            synchronized (RemoteAccessBenchmark.class) {
                System.setProperty("softcmi.node", node.toString());
                return Cmi.init(new CmiVersion(1, 1));
            }
        };
    }

    /** @param tlsDir where {@link #tlsOptions} put the key store, or null without TLS */
    private static String measure(CmiContext ctx, CmiMapping m, int ops, int bulk, List<Process> children, Path tlsDir)
            throws Exception {
        StringBuilder out = new StringBuilder();
        long[] raw = rawPingPong(ops, children);
        // All three operations share the connection's code (and over TLS the record layer): warm
        // it up with all of them first, so that the first one timed is not also the one that
        // waits for the JIT (over TLS the first-timed getLong took 36-53 us p50 where a second
        // timing in the same run took 14.5 us).
        for (int i = 0; i < ops / 2; i++) {
            m.getLong((i & 63) * 8L);
            m.putLong((i & 63) * 8L, i);
            ctx.atmCas(m, 512, i, i + 1);
        }
        long[] get = ChildProcesses.time(ops, i -> m.getLong((i & 63) * 8L));
        long[] put = ChildProcesses.time(ops, i -> m.putLong((i & 63) * 8L, i));
        long[] cas = ChildProcesses.time(ops, i -> ctx.atmCas(m, 512, i, i + 1));
        double stream = Math.max(rawStream(bulk, children), rawStream(bulk, children)); // the better of two runs
        RawTlsPeer.Result tlsSocket = null;
        RawTlsPeer.Result tlsStream = null;
        if (tlsDir != null) { // the better of two runs each, warmed up as the bulk transfers below are
            Path ks = tlsDir.resolve("cluster.p12");
            Path pw = tlsDir.resolve("tls.password");
            for (int run = 0; run < 2; run++) {
                tlsSocket = better(tlsSocket, RawTlsPeer.measure(children, "socket", ks, pw, MIB, bulk / 4, bulk));
                tlsStream = better(tlsStream, RawTlsPeer.measure(children, "engine", ks, pw, MIB, bulk / 4, bulk));
            }
        }
        MemorySegment buf = Arena.ofAuto().allocate(MIB);
        long warm = System.nanoTime(); // over TLS as long as the raw TLS streams: the cipher's JIT takes seconds
        for (int i = 0; i < bulk / 4 || tlsDir != null && System.nanoTime() - warm < RawTlsPeer.WARM_UP_NANOS; i++) {
            m.put(0, buf);
            m.get(0, buf);
        }
        long t0 = System.nanoTime();
        for (int i = 0; i < bulk; i++) {
            m.put(0, buf);
        }
        double putMbs = bulk * 1e3 / ((System.nanoTime() - t0) / 1e6) / 1.048576;
        t0 = System.nanoTime();
        for (int i = 0; i < bulk; i++) {
            m.get(0, buf);
        }
        double getMbs = bulk * 1e3 / ((System.nanoTime() - t0) / 1e6) / 1.048576;
        out.append(String.format(Locale.ROOT,
            "%nremote access, 2 daemons on loopback, %d ops each (after %d warm-up rounds of all three, then %d of each)%n",
            ops, ops / 2, ops / 2));
        out.append(String.format(Locale.ROOT, "%-34s %10s %10s %12s%n", "operation", "p50 us", "p99 us", "p50 / raw"));
        row(out, "raw TCP ping-pong (" + REQUEST + "/" + REPLY + " B, polling)", raw, raw);
        row(out, "remote getLong", get, raw);
        row(out, "remote putLong", put, raw);
        row(out, "remote atmCas", cas, raw);
        out.append(String.format(Locale.ROOT, "%-34s %10.0f MiB/s%n", "raw TCP stream (1 MiB chunks)", stream));
        if (tlsStream != null) {
            out.append(String.format(Locale.ROOT, "%-34s %10.0f MiB/s  (%.0f%% of raw TCP; %s %s; %s)%n",
                "raw TLS stream, SSLSocket", tlsSocket.mibPerSecond(), 100 * tlsSocket.mibPerSecond() / stream,
                tlsSocket.protocol(), tlsSocket.cipherSuite(), RawTlsPeer.aesIntrinsics()));
            out.append(String.format(Locale.ROOT, "%-34s %10.0f MiB/s  (%.0f%% of raw TCP; %s %s)%n",
                "raw TLS stream, SSLEngine", tlsStream.mibPerSecond(), 100 * tlsStream.mibPerSecond() / stream,
                tlsStream.protocol(), tlsStream.cipherSuite()));
        }
        bulkRow(out, "remote bulk put 1 MiB", putMbs, stream, tlsStream);
        bulkRow(out, "remote bulk get 1 MiB", getMbs, stream, tlsStream);
        return out.toString();
    }

    private static RawTlsPeer.Result better(RawTlsPeer.Result a, RawTlsPeer.Result b) {
        return a == null || b.mibPerSecond() > a.mibPerSecond() ? b : a;
    }

    private static void bulkRow(StringBuilder out, String name, double mbs, double stream, RawTlsPeer.Result tls) {
        out.append(String.format(Locale.ROOT, "%-34s %10.0f MiB/s  (%.0f%% of raw%s)%n", name, mbs, 100 * mbs / stream,
            tls == null ? "" : String.format(Locale.ROOT, "; %.0f%% of raw TLS (SSLEngine)", 100 * mbs / tls.mibPerSecond())));
    }

    private static void row(StringBuilder out, String name, long[] t, long[] raw) {
        out.append(String.format(Locale.ROOT, "%-34s %10.1f %10.1f %12.2f%n", name, ChildProcesses.pct(t, 50) / 1e3,
            ChildProcesses.pct(t, 99) / 1e3, (double) ChildProcesses.pct(t, 50) / ChildProcesses.pct(raw, 50)));
    }

    private static long[] rawPingPong(int ops, List<Process> children) throws Exception {
        int port = ChildProcesses.rawTcpPort(children, "echo", Integer.toString(REQUEST), Integer.toString(REPLY));
        try (SocketChannel ch = connect(port)) {
            ByteBuffer req = ByteBuffer.allocateDirect(REQUEST);
            ByteBuffer rep = ByteBuffer.allocateDirect(REPLY);
            return ChildProcesses.time(ops, i -> {
                RawTcpPeer.pollRound(ch, req, rep);
            });
        }
    }

    private static double rawStream(int chunks, List<Process> children) throws Exception {
        int port = ChildProcesses.rawTcpPort(children, "sink", Integer.toString(MIB));
        try (SocketChannel ch = connect(port)) {
            ch.configureBlocking(true);
            ByteBuffer chunk = ByteBuffer.allocateDirect(MIB);
            ByteBuffer ack = ByteBuffer.allocateDirect(1);
            long t0 = System.nanoTime();
            for (int i = 0; i < chunks; i++) {
                chunk.clear();
                while (chunk.hasRemaining()) {
                    ch.write(chunk);
                }
                ack.clear();
                while (ack.hasRemaining()) {
                    ch.read(ack);
                }
            }
            return chunks * 1e3 / ((System.nanoTime() - t0) / 1e6) / 1.048576;
        }
    }

    private static SocketChannel connect(int port) throws IOException {
        SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", port));
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        ch.configureBlocking(false);
        return ch;
    }

}
