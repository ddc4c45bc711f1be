package io.softcmi.systemtests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.CmiException;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.RemoteSegmentHandle;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * TLS between nodes and to homes (issue 6, "Offer TLS"): daemons started with
 * {@code --tls-keystore} speak TLS on peer and data connections. Every remote access works as
 * over plain TCP, and a wiretap between the importer and the home (a {@link FaultProxy} that
 * records) sees neither the data nor the token's secret. A node without TLS, a node whose
 * certificate the cluster does not trust, and a plain data connection are all refused, and the
 * home logs why.
 */
@Timeout(120)
class TlsSystemTest {
    private static final String PASSWORD = "softcmi-test-secret";
    private static final Set<Access> ALL = EnumSet.allOf(Access.class);

    @RegisterExtension
    final SystemTestResources resources = SystemTestResources.perTest();

    private Path tempDirectory() throws IOException {
        Path dir = Files.createTempDirectory("softcmi-tls-",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        resources.own(() -> Files2.deleteTree(dir));
        return dir;
    }

    /** A PKCS12 key store with one self-signed EC key pair, made with the JDK's keytool. */
    static Path keyStore(Path dir, String name) throws IOException, InterruptedException {
        Path ks = dir.resolve(name + ".p12");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
            "-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + name,
            "-validity", "2", "-storetype", "PKCS12", "-keystore", ks.toString(), "-storepass", PASSWORD,
            "-keypass", PASSWORD).redirectErrorStream(true).redirectOutput(dir.resolve(name + ".keytool.log").toFile())
            .start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "keytool finished");
        assertEquals(0, p.exitValue(), () -> "keytool: " + read(dir.resolve(name + ".keytool.log")));
        return ks;
    }

    /** The password file, readable by its owner only (as cmid requires). */
    static Path passwordFile(Path dir) throws IOException {
        Path f = dir.resolve("tls.password");
        if (!Files.exists(f)) {
            Files.createFile(f, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(f, PASSWORD + "\n");
        }
        return f;
    }

    private static String read(Path f) {
        try {
            return Files.readString(f);
        } catch (IOException e) {
            return e.toString();
        }
    }

    private static String[] tls(Path keyStore, Path password, String... more) {
        List<String> all = new java.util.ArrayList<>(List.of("--tls-keystore", keyStore.toString(), "--tls-password-file",
            password.toString()));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    private record Exported(CmiSegment segment, CmiMapping local, byte[] handle, byte[] token) {
    }

    private static Exported export(ContextThread on, long size) {
        return on.call(c -> {
            CmiSegment s = c.segGet(size, Set.of());
            CmiMapping m = c.segAt(s, Set.of());
            byte[] h = c.segExp(s, Set.of()).toBytes();
            CmiToken t = c.tokNew(s, NodeAddress.ANY, ALL);
            return new Exported(s, m, h, t.toBytes());
        });
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    @Test
    void shouldServeEveryRemoteAccessOverTlsAndShowAWiretapNeitherDataNorToken() throws Exception {
        ClusterNodes cluster = ClusterNodes.create(resources);
        Path dir = tempDirectory();
        Path ks = keyStore(dir, "cluster");
        Path pw = passwordFile(dir);
        try (FaultProxy tap = new FaultProxy()) {
            NodeProcess a = cluster.startWithOptions("A", tls(ks, pw, "--advertise", "127.0.0.1:" + tap.port()));
            tap.target(FailureScenarios.listenPort(a));
            NodeProcess b = cluster.startWithOptions("B", tls(ks, pw));
            ContextThread creator = cluster.context(a);
            ContextThread importer = cluster.context(b);
            long size = 4 << 20;
            Exported s = export(creator, size);
            creator.run(c -> s.local().putLong(0, 41));
            tap.record();
            byte[] marker = "SOFTCMI-PLAINTEXT-MARKER-0123456".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            byte[] bulk = new byte[1 << 20];
            for (int i = 0; i < bulk.length; i += marker.length) {
                System.arraycopy(marker, 0, bulk, i, marker.length);
            }
            byte[] back = new byte[bulk.length];
            long[] seen = importer.call(c -> {
                CmiSegment proxy = c.segImp(RemoteSegmentHandle.fromBytes(s.handle()));
                c.segSetToken(proxy, CmiToken.fromBytes(s.token()));
                CmiMapping m = c.segAt(proxy, Set.of());
                c.enable(true);
                c.rmb();
                long first = m.getLong(0);
                m.putLong(8, 99);
                long cas = c.atmCas(m, 16, 0, 7);
                m.put(1 << 20, bulk, 0, bulk.length);
                c.wmb();
                c.rmb();
                m.get(1 << 20, back, 0, back.length);
                return new long[] {first, cas, m.getLong(16)};
            });
            assertEquals(41, seen[0], "a load over TLS");
            assertEquals(0, seen[1], "the CAS's old value");
            assertEquals(7, seen[2], "the CAS's new value, read back");
            assertArrayEquals(bulk, back, "a 1 MiB store and load over TLS");
            creator.run(c -> {
                assertEquals(99, s.local().getLong(8), "the store reached the home");
                byte[] home = new byte[bulk.length];
                s.local().get(1 << 20, home, 0, home.length);
                assertArrayEquals(bulk, home, "the bulk store reached the home");
            });
            byte[] wire = tap.recorded();
            assertTrue(wire.length > bulk.length, "the tap saw the transfer (" + wire.length + " bytes)");
            assertFalse(contains(wire, marker), "the data crossed the tap in clear");
            // Nor does the token's secret, which every data request carries (as two 64-bit words).
            byte[] secret = ((io.softcmi.cmi.internal.TokenImpl) CmiToken.fromBytes(s.token())).secret();
            for (int half = 0; half < 16; half += 8) {
                byte[] word = java.util.Arrays.copyOfRange(secret, half, half + 8);
                byte[] reversed = new byte[8];
                for (int i = 0; i < 8; i++) {
                    reversed[i] = word[7 - i];
                }
                assertFalse(contains(wire, word) || contains(wire, reversed), "the token's secret crossed the tap in clear");
            }
            assertTrue(ClusterNodes.log(a).contains("(TLS)"), "the home logged a TLS data connection");
        }
    }

    @Test
    void shouldRefusePlainNodesUntrustedCertificatesAndPlainDataConnections() throws Exception {
        ClusterNodes cluster = ClusterNodes.create(resources);
        Path dir = tempDirectory();
        Path pw = passwordFile(dir);
        Path ks = keyStore(dir, "cluster");
        Path stranger = keyStore(dir, "stranger");
        NodeProcess a = cluster.startWithOptions("A", tls(ks, pw));
        NodeProcess plain = cluster.startWithOptions("P");
        NodeProcess untrusted = cluster.startWithOptions("U", tls(stranger, pw));
        ContextThread creator = cluster.context(a);
        Exported s = export(creator, 4096);

        ContextThread onPlain = cluster.context(plain);
        CmiException e = assertThrows(CmiException.class,
            () -> onPlain.run(c -> c.segImp(RemoteSegmentHandle.fromBytes(s.handle()))));
        assertTrue(e.getMessage().contains("cannot be reached"), e::getMessage);
        ClusterNodes.awaitLog(a, "refused a plain connection", Duration.ofSeconds(10));

        ContextThread onUntrusted = cluster.context(untrusted);
        CmiException e2 = assertThrows(CmiException.class,
            () -> onUntrusted.run(c -> c.segImp(RemoteSegmentHandle.fromBytes(s.handle()))));
        assertTrue(e2.getMessage().contains("cannot be reached"), e2::getMessage);
        ClusterNodes.awaitLog(a, "TLS handshake failed", Duration.ofSeconds(10));

        // A plain data connection (a process that does not speak TLS) is closed unanswered.
        try (SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", ClusterNodes.port(a)))) {
            ch.write(ByteBuffer.wrap(new byte[] {'D'}));
            ch.socket().setSoTimeout(10_000);
            assertEquals(-1, ch.socket().getInputStream().read(), "the home closed a plain data connection");
        }
        ClusterNodes.awaitLog(a, "refused a plain connection", Duration.ofSeconds(10));

        // The trusted path still works after all that.
        NodeProcess b = cluster.startWithOptions("B", tls(ks, pw));
        ContextThread importer = cluster.context(b);
        creator.run(c -> s.local().putLong(0, 5));
        long v = importer.call(c -> {
            CmiSegment proxy = c.segImp(RemoteSegmentHandle.fromBytes(s.handle()));
            c.segSetToken(proxy, CmiToken.fromBytes(s.token()));
            CmiMapping m = c.segAt(proxy, Set.of());
            c.enable(true);
            c.rmb();
            return m.getLong(0);
        });
        assertEquals(5, v);
    }

    @Test
    void shouldRefuseToStartWithABadTlsConfiguration() throws Exception {
        Path dir = tempDirectory();
        Path ks = keyStore(dir, "cluster");
        Path open = dir.resolve("open.password");
        Files.writeString(open, PASSWORD);
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rw-r--r--"));
        Path wrong = dir.resolve("wrong.password");
        Files.createFile(wrong, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(wrong, "not-the-password");
        String readable = cmidArgumentError(dir, "--tls-keystore", ks.toString(), "--tls-password-file", open.toString());
        assertTrue(readable.contains("must grant nothing to group or others"), readable);
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rw--w----"));
        String writable = cmidArgumentError(dir, "--tls-keystore", ks.toString(), "--tls-password-file", open.toString());
        assertTrue(writable.contains("must grant nothing to group or others"), "a password file its group may write: " + writable);
        String badPassword = cmidArgumentError(dir, "--tls-keystore", ks.toString(), "--tls-password-file", wrong.toString());
        assertTrue(badPassword.contains("cannot use TLS"), badPassword);
        String half = cmidArgumentError(dir, "--tls-keystore", ks.toString());
        assertTrue(half.contains("needs both --tls-keystore and --tls-password-file"), half);
    }

    /** Runs cmid with bad arguments: it must exit with status 2; returns its output. */
    private String cmidArgumentError(Path dir, String... tlsArgs) throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of("--dir", dir.resolve("node").toString()));
        args.addAll(List.of(tlsArgs));
        Process p = ChildJvm.start(io.softcmi.node.Cmid.class, List.of(), args, java.util.Map.of());
        resources.own(p::destroyForcibly);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "cmid exited");
        String out = new String(p.getInputStream().readAllBytes()) + new String(p.getErrorStream().readAllBytes());
        assertEquals(2, p.exitValue(), out);
        return out;
    }
}
