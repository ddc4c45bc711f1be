package io.softcmi.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.internal.NodeAddressImpl;
import io.softcmi.wire.ControlMessage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node's count limits ({@code NOMEM} of {@code seg_get}, {@code seg_exp}, {@code seg_imp},
 * {@code tok_new}: {@link NodeConfig#maxSegments}, {@link NodeConfig#maxExports},
 * {@link NodeConfig#maxImports}, {@link NodeConfig#maxTokens}, {@link NodeConfig#maxTokensPerSegment})
 * and the owner check of a reservation ({@code CMI_CTL_MEM_RESERVE_SET} {@code PERM}), on an
 * engine of its own with small limits, its sessions made directly: no sockets, no daemon. The
 * user of a session is what the control server takes from the socket's peer credentials, so two
 * users need no OS accounts here. The single-node system suites cover the default limits that
 * are cheap to reach (tokens per segment) on the real binding.
 */
class ControlLimitsTest {
    private static final int READ_WRITE = 0b011;
    private static final long PAGE = SegmentService.PAGE;

    @TempDir
    Path dir;
    private NodeEngine engine;

    private NodeEngine engine(NodeConfig limits) throws IOException {
        Path shm = Files.createDirectories(dir.resolve("shm"));
        byte[] id = new byte[NodeAddressImpl.ID_LENGTH];
        Arrays.fill(id, (byte) 3);
        engine = new NodeEngine(limits.directory(dir.resolve("node")).shmDirectory(shm).memoryBytes(64 * PAGE).conclude(),
            new NodeAddressImpl(id, "127.0.0.1", 0), null);
        return engine;
    }

    @AfterEach
    void shutDown() {
        if (engine != null) {
            engine.shutdown();
        }
    }

    private Session session(String user) {
        return engine.openSession(new ControlMessage.Hello(1, ProcessHandle.current().pid(), "test", 11), user,
            new Session.Notifier() {
                @Override
                public void send(ControlMessage notice) {
                }

                @Override
                public void sendNow(ControlMessage notice) {
                }
            });
    }

    private static void assertError(CmiError expected, ControlMessage reply) {
        assertError(expected, reply, "");
    }

    private static void assertError(CmiError expected, ControlMessage reply, String why) {
        ControlMessage.ErrorReply e = assertInstanceOf(ControlMessage.ErrorReply.class, reply, why);
        assertEquals(expected.ordinal(), e.code(), () -> why + ": " + e.message());
    }

    private long segGet(Session s) {
        return assertInstanceOf(ControlMessage.SegmentReply.class, engine.handle(s, new ControlMessage.SegGet(PAGE, 0)))
            .segment().id();
    }

    private byte[] export(Session s, long seg) {
        return assertInstanceOf(ControlMessage.BytesValue.class, engine.handle(s, new ControlMessage.SegExport(seg, 0)))
            .value();
    }

    private ControlMessage tokNew(Session s, long seg) {
        return engine.handle(s, new ControlMessage.TokNew(seg, NodeAddress.ANY.toBytes(), READ_WRITE, 0, 0));
    }

    @Test
    void segGetFailsWithNoMemAtTheMostSegments() throws IOException {
        engine(new NodeConfig().maxSegments(3));
        Session s = session("alice");
        long first = segGet(s);
        segGet(s);
        segGet(s);
        assertError(CmiError.NOMEM, engine.handle(s, new ControlMessage.SegGet(PAGE, 0)));
        assertInstanceOf(ControlMessage.Ok.class, engine.handle(s, new ControlMessage.SegRemove(first)));
        segGet(s); // a reclaimed segment frees its place
    }

    @Test
    void segExpFailsWithNoMemAtTheMostExports() throws IOException {
        engine(new NodeConfig().maxExports(2));
        Session s = session("alice");
        long seg = segGet(s);
        byte[] first = export(s, seg);
        export(s, segGet(s));
        assertError(CmiError.NOMEM, engine.handle(s, new ControlMessage.SegExport(seg, 0)));
        assertInstanceOf(ControlMessage.Ok.class, engine.handle(s, new ControlMessage.RsegDelete(first)));
        export(s, seg); // a deleted handle frees its place
    }

    @Test
    void segImpFailsWithNoMemAtTheMostImports() throws IOException {
        engine(new NodeConfig().maxImports(2));
        Session s = session("alice");
        byte[] handle = export(s, segGet(s));
        long first = assertInstanceOf(ControlMessage.ProxyReply.class, engine.handle(s, new ControlMessage.SegImport(handle)))
            .local().id();
        assertInstanceOf(ControlMessage.ProxyReply.class, engine.handle(s, new ControlMessage.SegImport(handle)));
        assertError(CmiError.NOMEM, engine.handle(s, new ControlMessage.SegImport(handle)));
        assertInstanceOf(ControlMessage.Ok.class, engine.handle(s, new ControlMessage.SegRemove(first)));
        assertInstanceOf(ControlMessage.ProxyReply.class, engine.handle(s, new ControlMessage.SegImport(handle)),
            "a reclaimed proxy frees its place");
    }

    @Test
    void tokNewFailsWithNoMemAtTheMostTokensOfASegmentAndOfTheNode() throws IOException {
        engine(new NodeConfig().maxTokensPerSegment(2).maxTokens(3));
        Session s = session("alice");
        long a = segGet(s);
        long b = segGet(s);
        assertInstanceOf(ControlMessage.BytesValue.class, tokNew(s, a));
        assertInstanceOf(ControlMessage.BytesValue.class, tokNew(s, a));
        assertError(CmiError.NOMEM, tokNew(s, a)); // the segment's most
        assertInstanceOf(ControlMessage.BytesValue.class, tokNew(s, b));
        assertError(CmiError.NOMEM, tokNew(s, b)); // the node's most, though b has one only
        assertError(CmiError.NOMEM, engine.handle(s, new ControlMessage.TokNew(segGet(s), NodeAddress.ANY.toBytes(),
            READ_WRITE, 0, PAGE))); // tok_newva alike
        assertInstanceOf(ControlMessage.Ok.class, engine.handle(s, new ControlMessage.SegRemove(a)));
        assertInstanceOf(ControlMessage.BytesValue.class, tokNew(s, b), "the tokens of a removed segment go with it");
    }

    @Test
    void memReserveSetOfAnotherUsersReservationFailsWithPerm() throws IOException {
        engine(new NodeConfig());
        Session alice = session("alice");
        long key = assertInstanceOf(ControlMessage.ReservationReply.class,
            engine.handle(alice, new ControlMessage.MemReserve(4 * PAGE))).key();
        Session bob = session("bob");
        assertError(CmiError.PERM, engine.handle(bob, new ControlMessage.MemReserveSet(key)));
        assertError(CmiError.PERM, engine.handle(bob, new ControlMessage.AdminDeleteReservation(key)));
        assertError(CmiError.INVAL, engine.handle(bob, new ControlMessage.MemReserveDelete()),
            "the refused set left bob without a reservation");
        Session aliceAgain = session("alice");
        assertInstanceOf(ControlMessage.Ok.class, engine.handle(aliceAgain, new ControlMessage.MemReserveSet(key)),
            "another context of the same user may use it");
        assertInstanceOf(ControlMessage.Ok.class, engine.handle(alice, new ControlMessage.MemReserveDelete()));
    }
}
