package io.softcmi.systemtests;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.CmiAccessError;
import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiException;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.RemoteSegmentHandle;
import io.softcmi.cmi.internal.NodeAddressImpl;
import io.softcmi.cmi.internal.RemoteSegmentHandleImpl;
import io.softcmi.wire.DataProtocol;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

import static io.softcmi.systemtests.CmiAssertions.assertAccessError;
import static io.softcmi.systemtests.CmiAssertions.assertCmiError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Nodes and trust (issue 3, "Nodes and trust"): daemons A, B and C share a cluster key; X, a
 * fourth daemon, has a key of its own. A peer without the key is refused and logged, both ways;
 * a process of X cannot open a data session at A; and at the home, a node-specific token works
 * only for requests that carry a ticket of the node it was made for, so another node cannot
 * borrow it. Tickets are checked on every data connection: forged, expired or malformed ones are
 * refused.
 */
@Timeout(60)
class PeerTrustTest {
    private static final long PAGE = 4096;
    private static final Set<Access> RW = EnumSet.of(Access.READ, Access.WRITE);
    private static final int STATUS_TOKEN = DataProtocol.STATUS_TOKEN;
    private static final long SILENT_PEER_HANGS_UP_MS = 30_000;

    @RegisterExtension
    static final SystemTestResources RESOURCES = SystemTestResources.perClass();

    private static ClusterNodes cluster;
    private static NodeProcess nodeA;
    private static NodeProcess nodeB;
    private static NodeProcess nodeC;
    private static NodeProcess nodeX;

    private ContextThread onA;
    private ContextThread onB;
    private ContextThread onX;

    @BeforeAll
    @Timeout(90)
    static void startCluster() throws IOException {
        cluster = ClusterNodes.create(RESOURCES);
        List<NodeProcess> trusted = cluster.start("A", "B", "C");
        nodeA = trusted.get(0);
        nodeB = trusted.get(1);
        nodeC = trusted.get(2);
        nodeX = cluster.startWithKey("X", cluster.newKeyFile());
    }

    @BeforeEach
    void openContexts() {
        onA = ClusterNodes.openContext(nodeA, "trust-A");
        onB = ClusterNodes.openContext(nodeB, "trust-B");
        onX = ClusterNodes.openContext(nodeX, "trust-X");
    }

    @AfterEach
    void closeContexts() {
        onX.close();
        onB.close();
        onA.close();
    }

    /** A segment of {@code on}'s, attached and exported: its id and handle bytes. */
    private record Exported(CmiSegment segment, CmiMapping local, byte[] handle) {
    }

    private static Exported export(ContextThread on) {
        return on.call(c -> {
            CmiSegment s = c.segGet(PAGE, Set.of());
            CmiMapping m = c.segAt(s, Set.of());
            return new Exported(s, m, c.segExp(s, Set.of()).toBytes());
        });
    }

    private static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    @Test
    void shouldRefuseAnImportOnANodeWithAnotherKeyAndLogTheRefusedPeer() {
        Exported s = export(onA);
        onX.run(c -> {
            CmiException e = assertCmiError(CmiError.INVAL, () -> c.segImp(RemoteSegmentHandle.fromBytes(s.handle)));
            assertTrue(e.getMessage().contains("cluster key"), e::getMessage);
        });
        ClusterNodes.awaitLog(nodeA, "refused peer " + hex(ClusterNodes.nodeId(nodeX)), Duration.ofSeconds(10));
        // A node with the key imports the same handle.
        onB.run(c -> assertTrue(c.segImp(RemoteSegmentHandle.fromBytes(s.handle)).imported()));
    }

    @Test
    void shouldRefuseToImportFromANodeWithAnotherKeyAndLogTheRefusedPeer() {
        Exported s = export(onX);
        onA.run(c -> {
            CmiException e = assertCmiError(CmiError.INVAL, () -> c.segImp(RemoteSegmentHandle.fromBytes(s.handle)));
            assertTrue(e.getMessage().contains("cluster key"), e::getMessage);
        });
        ClusterNodes.awaitLog(nodeX, "refused peer " + hex(ClusterNodes.nodeId(nodeA)), Duration.ofSeconds(10));
    }

    /**
     * A process of X gets a proxy that points at A's port (X imports one of its own segments
     * through a handle whose address was changed to A's: X itself is the home as far as X's
     * daemon can tell). Its data connection to A presents X's ticket, which A cannot verify.
     */
    @Test
    void shouldRefuseTheDataSessionOfAProcessOfAnUntrustedNodeWithTransient() {
        Exported s = export(onX);
        RemoteSegmentHandleImpl h = (RemoteSegmentHandleImpl) RemoteSegmentHandle.fromBytes(s.handle);
        NodeAddressImpl x = h.home();
        byte[] pointingAtA = new RemoteSegmentHandleImpl(new NodeAddressImpl(x.nodeId(), x.host(),
            ClusterNodes.port(nodeA)), h.segmentId(), h.generation(), h.exportId(), h.size(), h.segFlags(),
            h.writeThrough()).toBytes();
        onX.run(c -> {
            CmiSegment proxy = c.segImp(RemoteSegmentHandle.fromBytes(pointingAtA));
            c.segSetToken(proxy, c.tokNew(s.segment, c.nodeAddress(), RW));
            CmiMapping m = c.segAt(proxy, Set.of());
            c.enable(true);
            assertAccessError(CmiAccessError.TRANSIENT, proxy.id(), 0, () -> m.getLong(0));
        });
        ClusterNodes.awaitLog(nodeA, "refused a data connection", Duration.ofSeconds(10));
    }

    /**
     * A handle whose address names a port where something accepts connections and never says a
     * word (a hung daemon, or not a daemon at all): the import gives up with INVAL after the peer
     * timeout (10 s in {@code PeerClient}), it does not hang. The silent end hangs up after
     * {@value #SILENT_PEER_HANGS_UP_MS} ms so that the test ends either way.
     */
    @Test
    void shouldGiveUpAnImportWhenTheHomeNeverAnswers() throws IOException {
        Exported s = export(onA);
        RemoteSegmentHandleImpl h = (RemoteSegmentHandleImpl) RemoteSegmentHandle.fromBytes(s.handle);
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 5, java.net.InetAddress.getLoopbackAddress())) {
            Thread hangUp = Thread.ofPlatform().daemon().start(() -> {
                try {
                    java.net.Socket accepted = silent.accept();
                    try {
                        Thread.sleep(SILENT_PEER_HANGS_UP_MS);
                    } finally {
                        accepted.close();
                    }
                } catch (IOException | InterruptedException e) {
                    // The test is over.
                }
            });
            NodeAddressImpl home = h.home();
            byte[] toSilent = new RemoteSegmentHandleImpl(new NodeAddressImpl(home.nodeId(), home.host(),
                silent.getLocalPort()), h.segmentId(), h.generation(), h.exportId(), h.size(), h.segFlags(),
                h.writeThrough()).toBytes();
            long start = System.nanoTime();
            onB.run(c -> assertCmiError(CmiError.INVAL, () -> c.segImp(RemoteSegmentHandle.fromBytes(toSilent))));
            long millis = (System.nanoTime() - start) / 1_000_000;
            hangUp.interrupt();
            assertTrue(millis < 20_000, "the import waited " + millis + " ms for a home that never answers");
        }
    }

    @Test
    void shouldRefuseDataSessionsWithForgedExpiredOrMalformedTicketsOrWithoutTheSessionKey() throws IOException {
        int port = ClusterNodes.port(nodeA);
        byte[] nodeIdB = ClusterNodes.nodeId(nodeB);
        byte[] otherKey = new byte[32];
        new SecureRandom().nextBytes(otherKey);
        byte[] valid = RawDataClient.validTicket(cluster.clusterKey(), nodeIdB);
        byte[] tampered = valid.clone();
        tampered[3] ^= 1; // claims another node under the same MAC
        List<byte[]> refused = List.of(
            RawDataClient.ticket(otherKey, nodeIdB, 1, System.currentTimeMillis() + 3_600_000),
            RawDataClient.ticket(cluster.clusterKey(), nodeIdB, 1, System.currentTimeMillis() - 1_000),
            tampered,
            new byte[0],
            new byte[64],
            java.util.Arrays.copyOf(valid, 63),
            java.util.Arrays.copyOf(valid, 65));
        for (byte[] ticket : refused) {
            try (RawDataClient raw = RawDataClient.connect(port, (byte) 'D')) {
                RawDataClient.Reply r = raw.hello(ticket);
                assertNotNull(r, "the home answers a refused HELLO before closing");
                assertEquals(DataProtocol.STATUS_REFUSED & 0xff, r.status());
                assertTrue(raw.closedByHome(), "the home closes the connection after a refused HELLO");
            }
        }
        for (long version : new long[] {0, 1, DataProtocol.VERSION + 1, -1}) {
            try (RawDataClient raw = RawDataClient.connect(port, (byte) 'D')) {
                RawDataClient.Reply r = raw.hello(valid, version);
                assertNotNull(r, "the home answers a HELLO of another version before closing");
                assertEquals(DataProtocol.STATUS_VERSION & 0xff, r.status(), "version " + version);
                assertTrue(raw.closedByHome(), "the home closes the connection after a HELLO of another version");
            }
        }
        try (RawDataClient raw = RawDataClient.connect(port, (byte) 'D')) {
            RawDataClient.Reply challenge = raw.hello(valid);
            assertEquals(DataProtocol.STATUS_CHALLENGE & 0xff, challenge.status(), "a valid ticket is challenged");
            assertEquals(DataProtocol.NONCE_LENGTH, challenge.payload().length);
            RawDataClient.Reply stolen = raw.proof(new byte[DataProtocol.PROOF_LENGTH]);
            assertEquals(DataProtocol.STATUS_REFUSED & 0xff, stolen.status(), "a ticket without its session key opens nothing");
            assertTrue(raw.closedByHome(), "the home closes the connection after a failed proof");
        }
        try (RawDataClient raw = RawDataClient.connect(port, (byte) 'D')) {
            assertEquals(DataProtocol.STATUS_OK, raw.helloWithProof(valid, cluster.clusterKey()).status());
        }
        ClusterNodes.awaitLog(nodeA, "holds a valid ticket but not its session key", Duration.ofSeconds(10));
        ClusterNodes.awaitLog(nodeA, "refused a data connection", Duration.ofSeconds(10));
    }

    @Test
    void shouldNotLetAnotherNodeBorrowANodeSpecificToken() throws IOException {
        Exported s = export(onA);
        byte[] addressB = onB.call(c -> c.nodeAddress().toBytes());
        byte[] forB = onA.call(c -> {
            s.local.putLong(0, 0x0123456789ABCDEFL);
            return c.tokNew(s.segment, NodeAddress.fromBytes(addressB), RW).toBytes();
        });
        byte[] forAny = onA.call(c -> c.tokNew(s.segment, NodeAddress.ANY, EnumSet.of(Access.READ)).toBytes());
        long home = s.segment.id();
        int port = ClusterNodes.port(nodeA);
        Path key = cluster.clusterKey();

        try (RawDataClient asB = RawDataClient.open(port, RawDataClient.validTicket(key, ClusterNodes.nodeId(nodeB)), key);
                RawDataClient asC = RawDataClient.open(port, RawDataClient.validTicket(key, ClusterNodes.nodeId(nodeC)), key)) {
            RawDataClient.Reply fromB = asB.request(DataProtocol.OP_GET, home, forB, 0, 8, 0, new byte[0]);
            assertEquals(0, fromB.status());
            assertEquals(0x0123456789ABCDEFL, ByteBuffer.wrap(fromB.payload()).order(ByteOrder.nativeOrder()).getLong());

            // The same token bytes from a process of C: refused, as any wrong token.
            assertEquals(STATUS_TOKEN, asC.request(DataProtocol.OP_GET, home, forB, 0, 8, 0, new byte[0]).status());
            assertEquals(STATUS_TOKEN, asC.request(DataProtocol.OP_PUT, home, forB, 0, 8, 0, new byte[8]).status());
            // An ANY token serves C; a wrong secret or another segment id serves nobody.
            assertEquals(0, asC.request(DataProtocol.OP_GET, home, forAny, 0, 8, 0, new byte[0]).status());
            io.softcmi.cmi.internal.TokenImpl t = (io.softcmi.cmi.internal.TokenImpl) CmiToken.fromBytes(forB);
            assertEquals(STATUS_TOKEN, asB.request(DataProtocol.OP_GET, home, t.tokenId(), t.secretHi(),
                t.secretLo() ^ 1, 0, 8, 0, new byte[0]).status());
            assertEquals(STATUS_TOKEN, asB.request(DataProtocol.OP_GET, home, t.tokenId() + 1000, t.secretHi(),
                t.secretLo(), 0, 8, 0, new byte[0]).status());
            assertEquals(DataProtocol.STATUS_SINVAL,
                asB.request(DataProtocol.OP_GET, home + 1000, forB, 0, 8, 0, new byte[0]).status());
            // The refused store did not land; B's connection still works.
            RawDataClient.Reply again = asB.request(DataProtocol.OP_GET, home, forB, 0, 8, 0, new byte[0]);
            assertArrayEquals(fromB.payload(), again.payload());
        }
        onA.run(c -> assertEquals(0x0123456789ABCDEFL, s.local.getLong(0)));
    }
}
