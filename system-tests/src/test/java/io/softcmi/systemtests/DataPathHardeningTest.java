package io.softcmi.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.RemoteSegmentHandle;
import io.softcmi.cmi.internal.HandleCodec;
import io.softcmi.cmi.internal.RemoteSegmentHandleImpl;
import io.softcmi.cmi.internal.TicketProof;
import io.softcmi.node.NodeConfig;
import io.softcmi.node.NodeDaemon;
import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.PeerMessage;
import io.softcmi.wire.DataProtocol;
import io.softcmi.wire.Frame;
import io.softcmi.wire.FrameIO;
import io.softcmi.wire.MessageType;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hardening of the remote data path and the peer protocol (issue 6): a peer may only import for
 * itself; a node refuses a cluster key file that its group or others may read; a client that
 * asks for megabytes and never reads them costs the home no CPU and does not hold up others; a
 * connection that supersedes another of its context leaves nothing of the old one to land later.
 */
@Timeout(120)
class DataPathHardeningTest {
    @RegisterExtension
    static final SystemTestResources RESOURCES = SystemTestResources.perClass();

    private static ClusterNodes cluster;
    private static NodeProcess home;
    private static NodeProcess other;

    @BeforeAll
    @Timeout(90)
    static void startCluster() throws IOException {
        cluster = ClusterNodes.create(RESOURCES);
        List<NodeProcess> nodes = cluster.start("A", "B");
        home = nodes.get(0);
        other = nodes.get(1);
    }

    @Test
    void shouldRefuseAPeerImportThatNamesAnotherNodeAsImporter() throws Exception {
        byte[] handle = cluster.context(home).call(c -> {
            CmiSegment s = c.segGet(4096, Set.of());
            return c.segExp(s, Set.of()).toBytes();
        });
        RemoteSegmentHandleImpl h = (RemoteSegmentHandleImpl) HandleCodec.remoteSegmentHandle(handle);
        byte[] key = Files.readAllBytes(cluster.clusterKey());
        byte[] myId = ClusterNodes.nodeId(other);
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", ClusterNodes.port(home)), 5000);
            s.setSoTimeout(10_000);
            s.getOutputStream().write('P');
            byte[] nonce = new byte[16];
            new SecureRandom().nextBytes(nonce);
            send(s, new PeerMessage.PeerHello(myId, nonce));
            PeerMessage.PeerChallenge ch = (PeerMessage.PeerChallenge) receive(s);
            send(s, new PeerMessage.PeerProof(TicketProof.hmac(key, "peer-caller", ch.nonce(), myId, ch.nodeId())));
            // Authenticated as B, but claiming to import for a made-up node C.
            byte[] claimed = h.home().toBytes().clone();
            byte[] forged = NodeAddressBytes.withId(claimed, new byte[16]);
            send(s, new PeerMessage.PeerImport(h.segmentId(), h.generation(), false, forged, 77, 1));
            ControlMessage reply = receive(s);
            assertTrue(reply instanceof ControlMessage.ErrorReply e && e.code() == CmiError.PERM.ordinal(),
                "a peer importing for another node is refused with PERM, got " + reply);
        }
        ClusterNodes.awaitLog(home, "names another node as importer", Duration.ofSeconds(10));
    }

    private static void send(Socket s, ControlMessage m) throws IOException {
        ByteBuffer b = FrameIO.encode(MessageType.toFrame(m, 1));
        s.getOutputStream().write(b.array(), b.position(), b.remaining());
    }

    private static ControlMessage receive(Socket s) throws IOException {
        DataInputStream in = new DataInputStream(s.getInputStream());
        int length = in.readInt();
        byte[] body = new byte[length];
        in.readFully(body);
        ByteBuffer b = ByteBuffer.wrap(body);
        b.get(); // version
        int type = b.get() & 0xff;
        int flags = b.getShort() & 0xffff;
        long id = b.getLong();
        byte[] payload = new byte[b.remaining()];
        b.get(payload);
        return MessageType.decode(new Frame(type, flags, id, payload));
    }

    @Test
    void shouldRefuseToStartANodeWhoseClusterKeyFileItsGroupMayRead() throws IOException {
        Path dir = Files.createTempDirectory("softcmi-keymode-");
        Path keyFile = dir.resolve("cluster.key");
        try {
            Files.write(keyFile, new byte[32]);
            Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-r-----"));
            NodeConfig config = new NodeConfig().directory(dir.resolve("node")).clusterKeyFile(keyFile)
                .shmDirectory(dir.resolve("shm"));
            IOException e = org.junit.jupiter.api.Assertions.assertThrows(IOException.class, () -> NodeDaemon.start(config));
            assertTrue(e.getMessage().contains("must have mode 0600"), e.getMessage());
            Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-------"));
            try (NodeDaemon node = NodeDaemon.start(new NodeConfig().directory(dir.resolve("node")).clusterKeyFile(keyFile)
                    .shmDirectory(dir.resolve("shm")))) {
                assertTrue(node.engine() != null);
            }
        } finally {
            Files2.deleteTree(dir);
        }
    }

    @Test
    void shouldNotSpendCpuOnAClientThatRequestsMegabytesAndNeverReads() throws Exception {
        ContextThread owner = cluster.context(home);
        byte[][] shared = owner.call(c -> {
            CmiSegment s = c.segGet(1 << 20, Set.of());
            return new byte[][] {c.segExp(s, Set.of()).toBytes(),
                c.tokNew(s, NodeAddress.ANY, EnumSet.allOf(Access.class)).toBytes()};
        });
        RemoteSegmentHandleImpl h = (RemoteSegmentHandleImpl) HandleCodec.remoteSegmentHandle(shared[0]);
        byte[] ticket = RawDataClient.validTicket(cluster.clusterKey(), ClusterNodes.nodeId(other));
        long cpuBefore = ioThreadCpuTicks(home.pid());
        try (RawDataClient greedy = RawDataClient.open(ClusterNodes.port(home), ticket, cluster.clusterKey())) {
            // 64 requests for 1 MiB each, and never a byte read back.
            for (int i = 0; i < 64; i++) {
                ByteBuffer b = ByteBuffer.allocate(DataProtocol.REQUEST_HEADER).order(ByteOrder.LITTLE_ENDIAN);
                io.softcmi.cmi.internal.TokenImpl t = (io.softcmi.cmi.internal.TokenImpl) CmiToken.fromBytes(shared[1]);
                DataProtocol.writeRequest(b, DataProtocol.OP_GET, i + 1, h.segmentId(), t.tokenId(), t.secretHi(),
                    t.secretLo(), 0, 1 << 20, 0, 0);
                greedy.send(b.array());
            }
            Thread.sleep(2_000);
            long cpu = ioThreadCpuTicks(home.pid()) - cpuBefore;
            assertTrue(cpu < 50, "the home's I/O loop used " + cpu + " ticks (1/100 s) in 2 s for a client that never reads");
            // Another client is served meanwhile.
            long v = cluster.context(other).call(c -> {
                CmiSegment p = c.segImp(RemoteSegmentHandle.fromBytes(shared[0]));
                c.segSetToken(p, CmiToken.fromBytes(shared[1]));
                c.enable(true);
                CmiMapping m = c.segAt(p, Set.of());
                m.putLong(8, 99);
                return m.getLong(8);
            });
            assertEquals(99, v);
        }
    }

    @Test
    void shouldStoreEveryByteOfAPutWhosePayloadArrivesInPieces() throws Exception {
        int size = 256 * 1024;
        Exported e = exportToRawClients(size);
        ContextThread owner = e.owner();
        CmiMapping[] mapping = {e.mapping()};
        RemoteSegmentHandleImpl h = e.handle();
        io.softcmi.cmi.internal.TokenImpl t = e.token();
        byte[] ticket = e.ticket();
        // The home writes a store's last word after the rest (DataConnection.LAST_WORD): its bytes
        // may come with the header, apart, or partly with it; stores of one word or less have none.
        int[] lengths = {3, 4, 5, 8, 13, 4096, 100_003, 200_000};
        int[] withheld = {0, 1, 2, 4, 5, 9, 70_000};
        long offset = 0;
        int request = 0;
        try (RawDataClient raw = RawDataClient.open(ClusterNodes.port(home), ticket, cluster.clusterKey())) {
            for (int length : lengths) {
                for (int held : withheld) {
                    if (held > length || offset + length > size) {
                        continue;
                    }
                    byte[] payload = new byte[length];
                    new java.util.Random(offset).nextBytes(payload);
                    ByteBuffer b = ByteBuffer.allocate(DataProtocol.REQUEST_HEADER + length).order(ByteOrder.LITTLE_ENDIAN);
                    DataProtocol.writeRequest(b, DataProtocol.OP_PUT, ++request, h.segmentId(), t.tokenId(), t.secretHi(),
                        t.secretLo(), offset, length, 0, length);
                    b.put(payload);
                    byte[] frame = b.array();
                    raw.send(java.util.Arrays.copyOf(frame, frame.length - held));
                    if (held > 0) {
                        Thread.sleep(20); // the home serves what came, then waits for the rest
                        raw.send(java.util.Arrays.copyOfRange(frame, frame.length - held, frame.length));
                    }
                    RawDataClient.Reply r = raw.readReply();
                    String what = length + " bytes at " + offset + ", last " + held + " apart";
                    assertEquals(0, r.status(), what);
                    long at = offset;
                    byte[] stored = owner.call(c -> {
                        byte[] got = new byte[length];
                        mapping[0].get(at, got, 0, length);
                        return got;
                    });
                    org.junit.jupiter.api.Assertions.assertArrayEquals(payload, stored, what);
                    offset += length;
                }
            }
        }
    }

    @Test
    void shouldServeLargeAndSmallRequestsWrittenTogetherInOrder() throws Exception {
        int size = 512 * 1024;
        Exported e = exportToRawClients(size);
        // Stores of 16 KiB and more make the home read the next request's header alone
        // (RequestInput.STREAM_PAYLOAD); small stores and loads between them end that. All in
        // one write, each store followed by a load of its first word: the replies come in order
        // and every load sees its store.
        int[] lengths = {65_536, 8, 20_000, 13, 70_000, 9, 16_384, 100_000};
        java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
        byte[][] payloads = new byte[lengths.length][];
        long offset = 0;
        long request = 0;
        for (int k = 0; k < lengths.length; k++) {
            payloads[k] = new byte[lengths[k]];
            new java.util.Random(k).nextBytes(payloads[k]);
            ByteBuffer put = ByteBuffer.allocate(DataProtocol.REQUEST_HEADER + lengths[k]).order(ByteOrder.LITTLE_ENDIAN);
            DataProtocol.writeRequest(put, DataProtocol.OP_PUT, ++request, e.handle().segmentId(), e.token().tokenId(),
                e.token().secretHi(), e.token().secretLo(), offset, lengths[k], 0, lengths[k]);
            put.put(payloads[k]);
            all.write(put.array());
            ByteBuffer get = ByteBuffer.allocate(DataProtocol.REQUEST_HEADER).order(ByteOrder.LITTLE_ENDIAN);
            DataProtocol.writeRequest(get, DataProtocol.OP_GET, ++request, e.handle().segmentId(), e.token().tokenId(),
                e.token().secretHi(), e.token().secretLo(), offset, 8, 0, 0);
            all.write(get.array());
            offset += lengths[k];
        }
        try (RawDataClient raw = RawDataClient.open(ClusterNodes.port(home), e.ticket(), cluster.clusterKey())) {
            raw.send(all.toByteArray());
            long expected = 0;
            for (int k = 0; k < lengths.length; k++) {
                RawDataClient.Reply stored = raw.readReply();
                assertEquals(++expected, stored.requestId(), "replies in order");
                assertEquals(0, stored.status(), "store " + k);
                RawDataClient.Reply loaded = raw.readReply();
                assertEquals(++expected, loaded.requestId(), "replies in order");
                assertEquals(0, loaded.status(), "load " + k);
                org.junit.jupiter.api.Assertions.assertArrayEquals(java.util.Arrays.copyOf(payloads[k], 8), loaded.payload(),
                    "the load after store " + k + " sees it");
            }
        }
        long at = 0;
        for (int k = 0; k < lengths.length; k++) {
            long from = at;
            int length = lengths[k];
            byte[] got = e.owner().call(c -> {
                byte[] b = new byte[length];
                e.mapping().get(from, b, 0, length);
                return b;
            });
            org.junit.jupiter.api.Assertions.assertArrayEquals(payloads[k], got, "store " + k);
            at += length;
        }
    }

    /**
     * A stale store across a hang (architecture.md §7.4, "Deadlines"): a process gave up on a
     * connection (its call timed out) while the home had read only part of a store; the rest
     * still sits unread. The process's next connection names the old one in its HELLO. The home
     * must stop the old one before it answers: the new connection's store is the last word,
     * and the rest of the old store, sent only now, lands nowhere.
     */
    @Test
    void shouldDropTheRestOfAStoreOnAConnectionThatANewOneOfTheSameContextSupersedes() throws Exception {
        int size = 256 * 1024;
        int sentFirst = 100 * 1024;
        Exported e = exportToRawClients(size);
        int port = ClusterNodes.port(home);
        long before = CmiAdmFigures.dataplane(home, "connections_superseded");
        byte[] stale = putFrame(e, 1, size, (byte) 0x5A);
        try (RawDataClient old = RawDataClient.open(port, e.ticket(), cluster.clusterKey(), 1, 0)) {
            assertTrue(old.send(java.util.Arrays.copyOf(stale, DataProtocol.REQUEST_HEADER + sentFirst)));
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (byteAt(e, sentFirst - 64) != 0x5A) { // the home streams the first part into the mapping
                assertTrue(System.nanoTime() - deadline < 0, "the first part of the store did not land in 10 s");
                Thread.sleep(5);
            }
            try (RawDataClient fresh = RawDataClient.open(port, e.ticket(), cluster.clusterKey(), 2, 1)) {
                assertTrue(fresh.send(putFrame(e, 1, size, (byte) 0x33)));
                assertEquals(0, fresh.readReply().status(), "the new connection's store");
                old.send(java.util.Arrays.copyOfRange(stale, DataProtocol.REQUEST_HEADER + sentFirst, stale.length));
                assertEquals(null, old.readReply(), "the superseded connection is closed without an answer to its store");
                byte[] got = e.owner().call(c -> {
                    byte[] b = new byte[size];
                    e.mapping().get(0, b, 0, size);
                    return b;
                });
                int firstOther = 0;
                while (firstOther < size && got[firstOther] == 0x33) {
                    firstOther++;
                }
                assertEquals(size, firstOther, "every byte is the new connection's (0x5A: the old store landed after it)");
            }
        }
        assertEquals(before + 1, CmiAdmFigures.dataplane(home, "connections_superseded"));
    }

    @Test
    void shouldRefuseAConnectionWhoseNumberAnOpenConnectionOfTheSameContextHas() throws Exception {
        Exported e = exportToRawClients(4096);
        int port = ClusterNodes.port(home);
        try (RawDataClient first = RawDataClient.open(port, e.ticket(), cluster.clusterKey(), 7, 0);
                RawDataClient second = RawDataClient.connect(port, (byte) 'D')) {
            assertEquals(null, second.helloWithProof(e.ticket(), cluster.clusterKey(), 7, 0), "a second connection numbered 7");
            assertTrue(first.send(putFrame(e, 1, 8, (byte) 1)));
            assertEquals(0, first.readReply().status(), "the first one is still served");
        }
        // Once it closed, its number is free again (a connection that names none is never refused for it).
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            try (RawDataClient again = RawDataClient.connect(port, (byte) 'D')) {
                RawDataClient.Reply r = again.helloWithProof(e.ticket(), cluster.clusterKey(), 7, 0);
                if (r != null && r.status() == 0) {
                    break;
                }
            }
            assertTrue(System.nanoTime() - deadline < 0, "number 7 not free 10 s after its connection closed");
            Thread.sleep(20);
        }
    }

    private static byte[] putFrame(Exported e, long requestId, int length, byte fill) {
        ByteBuffer b = ByteBuffer.allocate(DataProtocol.REQUEST_HEADER + length).order(ByteOrder.LITTLE_ENDIAN);
        DataProtocol.writeRequest(b, DataProtocol.OP_PUT, requestId, e.handle().segmentId(), e.token().tokenId(),
            e.token().secretHi(), e.token().secretLo(), 0, length, 0, length);
        while (b.hasRemaining()) {
            b.put(fill);
        }
        return b.array();
    }

    private static byte byteAt(Exported e, long offset) throws Exception {
        return e.owner().call(c -> e.mapping().getByte(offset));
    }

    /** A segment of the home, attached by its owner, exported with a token for everything, and a ticket of the other node. */
    private record Exported(ContextThread owner, CmiMapping mapping, RemoteSegmentHandleImpl handle,
            io.softcmi.cmi.internal.TokenImpl token, byte[] ticket) {
    }

    /** Makes the segment a {@link RawDataClient} posing as the other node stores into. */
    private static Exported exportToRawClients(int size) throws Exception {
        ContextThread owner = cluster.context(home);
        CmiMapping[] mapping = new CmiMapping[1];
        byte[][] shared = owner.call(c -> {
            CmiSegment s = c.segGet(size, Set.of());
            c.enable(true);
            mapping[0] = c.segAt(s, Set.of());
            return new byte[][] {c.segExp(s, Set.of()).toBytes(),
                c.tokNew(s, NodeAddress.ANY, EnumSet.allOf(Access.class)).toBytes()};
        });
        return new Exported(owner, mapping[0], (RemoteSegmentHandleImpl) HandleCodec.remoteSegmentHandle(shared[0]),
            (io.softcmi.cmi.internal.TokenImpl) CmiToken.fromBytes(shared[1]),
            RawDataClient.validTicket(cluster.clusterKey(), ClusterNodes.nodeId(other)));
    }

    /** User+system CPU ticks of the home's data-path I/O threads. */
    private static long ioThreadCpuTicks(long pid) throws IOException {
        long total = 0;
        try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path t : tasks.toList()) {
                if (Files.readString(t.resolve("comm")).startsWith("cmid-data-io")) {
                    String stat = Files.readString(t.resolve("stat"));
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    total += Long.parseLong(f[11]) + Long.parseLong(f[12]);
                }
            }
        }
        return total;
    }

    /** Node address bytes with another node id. */
    private static final class NodeAddressBytes {
        private NodeAddressBytes() {
        }

        static byte[] withId(byte[] address, byte[] id) {
            io.softcmi.cmi.internal.NodeAddressImpl a = (io.softcmi.cmi.internal.NodeAddressImpl) HandleCodec.nodeAddress(address);
            return new io.softcmi.cmi.internal.NodeAddressImpl(id, a.host(), a.port()).toBytes();
        }
    }
}
