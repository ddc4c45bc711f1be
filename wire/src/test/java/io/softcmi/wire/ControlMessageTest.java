package io.softcmi.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ControlMessageTest {

    /** Every {@link MessageType}'s sample message, with non-trivial values in every field. */
    static List<ControlMessage> samples() {
        byte[] id16 = new byte[16];
        Arrays.fill(id16, (byte) 0xa5);
        byte[] handle = {0x43, 0x4d, 0x49, 0x52, 1, 0, 0, 0, 3, 9, 8, 7};
        SegmentDescriptor seg = new SegmentDescriptor(7, 1 << 20, 0b101, 1 << 19, "/dev/shm/softcmi/seg-7", 4096,
            11, 12345, 2, 3, true, false);
        ControlMessage.ProxyReply proxy = new ControlMessage.ProxyReply(seg, id16, 99, true, new byte[] {5, 6});
        return List.of(
            new ControlMessage.Hello(Frame.VERSION, 4242, "java Demo \u00e9", 11),
            new ControlMessage.SegGet(32L << 20, 0b11),
            new ControlMessage.SegLookup(Long.MAX_VALUE),
            new ControlMessage.SegAttach(7, true),
            new ControlMessage.SegDetach(-5),
            new ControlMessage.SegRemove(7),
            new ControlMessage.SegBreak(7, 8192),
            new ControlMessage.SegExport(7, 1),
            new ControlMessage.RsegDelete(handle),
            new ControlMessage.CtlInfo(),
            new ControlMessage.CacheRsegSet(-1, 1 << 30),
            new ControlMessage.CacheRsegGet(7),
            new ControlMessage.MemReserve(1L << 33),
            new ControlMessage.MemReserveDelete(),
            new ControlMessage.MemReserveSet(0x1234),
            new ControlMessage.CmapGet(17),
            new ControlMessage.SegRecovery(7, 4096, 8192, true),
            new ControlMessage.AdminList("segments"),
            new ControlMessage.AdminDeleteReservation(0x1234),
            new ControlMessage.SegImport(handle),
            new ControlMessage.TokNew(7, id16, 3, 4096, 4096),
            new ControlMessage.TokDel(new byte[] {1, 2, 3, 4}),
            new ControlMessage.SegSetToken(8, new byte[] {9, 9}),
            new ControlMessage.TicketRequest(),
            new ControlMessage.TlsTrustRequest(),
            new PeerMessage.PeerHello(id16, new byte[32]),
            new PeerMessage.PeerChallenge(id16, new byte[] {1, 2}, new byte[32]),
            new PeerMessage.PeerProof(new byte[32]),
            new PeerMessage.PeerImport(7, 3, true, handle, 21, 5),
            new PeerMessage.PeerPing(handle),
            new ControlMessage.ImportStatus(9),
            new PeerMessage.PeerDescribe(7, 7),
            new PeerMessage.PeerContextDown(handle, 5, true, List.of(7L, 8L)),
            new ControlMessage.Goodbye(),
            new ProcessMessage.ProcSpawn("test/1", "VMMC_n1.1", List.of("/bin/sleep", "60"), List.of("A=b", "C"), "/tmp",
                "/tmp/out", "/tmp/out"),
            new ProcessMessage.ProcKill("test/1", 0),
            new ProcessMessage.ProcStatus(3),
            new ProcessMessage.RegPut("session", "test", List.of("user=alice", "hosts=n1"), true),
            new ProcessMessage.RegGet("session", "test"),
            new ProcessMessage.RegDelete("session", "test"),
            new ProcessMessage.RegNext("vmmc.run", "test"),
            ProcessMessage.Forward.of(handle, new ProcessMessage.ProcKill("test/1", 2)),
            new ControlMessage.HomeDownNotice(handle),
            new ControlMessage.FluxNotice(7, List.of(0L, 4096L, 8192L, 12288L)),
            new PeerMessage.PeerUnimport(7, handle, 21),
            new ControlMessage.HelloReply(77, id16, "node-a", 64),
            new ControlMessage.Ok(),
            new ControlMessage.ErrorReply(5, "segment 7 is marked for deletion"),
            new ControlMessage.SegmentReply(seg),
            new ControlMessage.Attached(31, seg),
            new ControlMessage.LongValue(Long.MIN_VALUE),
            new ControlMessage.BytesValue(handle),
            new ControlMessage.LongsValue(new long[] {1, -2, Long.MAX_VALUE, 0}),
            new ControlMessage.ReservationReply(0x1234, 1 << 20, 4096),
            new ControlMessage.RangeReply(true, 4096, 8192),
            new ControlMessage.Table(List.of("ID", "SIZE"), List.of(List.of("7", "1048576"), List.of("8", "4096"))),
            proxy,
            new ControlMessage.ProxyAttached(32, proxy),
            new ControlMessage.EventNotice(3, 17, List.of(7L, 8L), List.of(id16, new byte[0]), 44, List.of(4096L)),
            new ControlMessage.NodeShutdown("SIGTERM"),
            new ControlMessage.TokenNotice(8, new byte[] {1}),
            new ControlMessage.Notify(7, 4088, Long.MIN_VALUE),
            new ControlMessage.CacheReport(3, 120, 7, 1L << 20, Long.MAX_VALUE, 1001, 999, 999L * 1024, 88, 90, 4096, 12,
                40, 5, Long.MIN_VALUE),
            new ControlMessage.NotificationNotice(7, 64, -1, id16));
    }

    /** Field-by-field equality for records, arrays and lists of them (records compare arrays by identity). */
    static void assertDeepEquals(Object expected, Object actual, String where) {
        if (expected == null || actual == null) {
            assertSame(expected, actual, where);
        } else if (expected instanceof byte[] e) {
            assertTrue(Arrays.equals(e, (byte[]) actual), where + ": " + Arrays.toString(e) + " vs "
                + Arrays.toString((byte[]) actual));
        } else if (expected instanceof long[] e) {
            assertTrue(Arrays.equals(e, (long[]) actual), where);
        } else if (expected instanceof List<?> e) {
            List<?> a = assertInstanceOf(List.class, actual, where);
            assertEquals(e.size(), a.size(), where + ".size");
            for (int i = 0; i < e.size(); i++) {
                assertDeepEquals(e.get(i), a.get(i), where + "[" + i + "]");
            }
        } else if (expected.getClass().isRecord()) {
            assertSame(expected.getClass(), actual.getClass(), where);
            for (RecordComponent c : expected.getClass().getRecordComponents()) {
                try {
                    assertDeepEquals(c.getAccessor().invoke(expected), c.getAccessor().invoke(actual),
                        where + "." + c.getName());
                } catch (ReflectiveOperationException ex) {
                    fail(ex);
                }
            }
        } else {
            assertEquals(expected, actual, where);
        }
    }

    @Test
    void shouldHaveASampleForEveryMessageType() {
        Set<MessageType> covered = EnumSet.noneOf(MessageType.class);
        for (ControlMessage m : samples()) {
            covered.add(m.type());
        }
        assertEquals(EnumSet.allOf(MessageType.class), covered, "add a sample for each new message type");
    }

    @Test
    void shouldGiveEveryTypeADistinctIdInItsRange() {
        Set<Integer> ids = new HashSet<>();
        for (MessageType t : MessageType.values()) {
            assertTrue(t.id() > 0 && t.id() < 256, t + " id " + t.id());
            assertTrue(ids.add(t.id()), "duplicate id " + t.id());
        }
    }

    @Test
    void shouldRoundTripEveryMessageThroughAFrame() {
        for (ControlMessage m : samples()) {
            Frame f = MessageType.toFrame(m, 42);
            assertEquals(m.type().id(), f.type());
            assertEquals(42, f.correlationId());
            assertEquals(0, f.flags());
            ControlMessage back = MessageType.decode(f);
            assertSame(m.type(), back.type());
            assertDeepEquals(m, back, m.type().name());
        }
    }

    @Test
    void shouldRoundTripEveryMessageThroughFrameIO() throws IOException {
        for (ControlMessage m : samples()) {
            ByteBuffer b = FrameIO.encode(MessageType.toFrame(m, 7));
            Frame f = FrameIO.read(Channels.newChannel(new ByteArrayInputStream(b.array(), 0, b.limit())));
            assertNotNull(f);
            assertDeepEquals(m, MessageType.decode(f), m.type().name());
        }
    }

    @Test
    void shouldEncloseARequestInAForwardAndGetItBack() {
        ProcessMessage.ProcSpawn spawn = new ProcessMessage.ProcSpawn("g", "n", List.of("java", "-cp", "x".repeat(10_000)),
            List.of(), "", "", "");
        ProcessMessage.Forward f = (ProcessMessage.Forward) MessageType.decode(MessageType.toFrame(
            ProcessMessage.Forward.of(new byte[] {1, 2}, spawn), 9));
        assertEquals(MessageType.PROC_SPAWN.id(), f.requestType());
        assertDeepEquals(spawn, f.request(), "enclosed");
    }

    @Test
    void shouldLayOutACacheReportAsFifteenBigEndianLongsInFieldOrder() {
        ControlMessage.CacheReport m = new ControlMessage.CacheReport(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        Frame f = MessageType.toFrame(m, 0);
        assertEquals(29, f.type(), "the next free request id after TLS_TRUST (28)");
        assertEquals(0, f.correlationId(), "one-way");
        ByteBuffer b = ByteBuffer.wrap(f.payload());
        assertEquals(120, b.remaining());
        for (long v = 1; v <= 15; v++) {
            assertEquals(v, b.getLong(), "field at offset " + (v - 1) * 8);
        }
        assertEquals(m, MessageType.decode(f));
        ControlMessage.CacheReport zero = new ControlMessage.CacheReport(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        assertEquals(zero, MessageType.decode(MessageType.toFrame(zero, 0)));
    }

    @Test
    void shouldRoundTripEmptyCollections() {
        for (ControlMessage m : List.of(new ControlMessage.LongsValue(new long[0]),
                new ControlMessage.Table(List.of(), List.of()),
                new ControlMessage.Table(List.of("A"), List.of(List.of())),
                new ControlMessage.EventNotice(0, 0, List.of(), List.of(), 0, List.of()),
                new ControlMessage.BytesValue(new byte[0]),
                new ControlMessage.AdminList(""))) {
            assertDeepEquals(m, MessageType.decode(MessageType.toFrame(m, 1)), m.type().name());
        }
    }

    @Test
    void shouldRejectUnknownTypes() {
        Set<Integer> known = new HashSet<>();
        for (MessageType t : MessageType.values()) {
            known.add(t.id());
        }
        for (int type = -1; type <= 256; type++) {
            if (!known.contains(type)) {
                Frame f = new Frame(type, 0, 1, new byte[0]);
                WireFormatException e = assertThrows(WireFormatException.class, () -> MessageType.decode(f),
                    "type " + type);
                assertTrue(e.getMessage().contains("unknown"), e.getMessage());
            }
        }
        assertThrows(WireFormatException.class, () -> MessageType.decode(new Frame(Integer.MAX_VALUE, 0, 1, new byte[0])));
        assertThrows(WireFormatException.class, () -> MessageType.decode(new Frame(Integer.MIN_VALUE, 0, 1, new byte[0])));
    }

    @Test
    void shouldRejectTrailingBytesAfterEveryMessage() {
        for (ControlMessage m : samples()) {
            Frame f = MessageType.toFrame(m, 1);
            byte[] longer = Arrays.copyOf(f.payload(), f.payload().length + 1);
            assertThrows(WireFormatException.class, () -> MessageType.decode(new Frame(f.type(), 0, 1, longer)),
                m.type().name());
        }
    }

    @Test
    void shouldRejectEveryTruncationOfEveryMessage() {
        for (ControlMessage m : samples()) {
            byte[] payload = MessageType.toFrame(m, 1).payload();
            for (int cut = 0; cut < payload.length; cut++) {
                byte[] part = Arrays.copyOf(payload, cut);
                assertThrows(WireFormatException.class,
                    () -> MessageType.decode(new Frame(m.type().id(), 0, 1, part)), m.type() + " cut at " + cut);
            }
        }
    }

    @Test
    void shouldRejectStringsAndListsAboveTheirLimits() {
        String tooLong = "x".repeat(ControlMessage.MAX_STRING + 1);
        Frame f = MessageType.toFrame(new ControlMessage.NodeShutdown(tooLong), 1);
        assertThrows(WireFormatException.class, () -> MessageType.decode(f));
        byte[] manyLongs = new WireWriter().putInt(ControlMessage.MAX_LIST + 1).toByteArray();
        assertThrows(WireFormatException.class,
            () -> MessageType.decode(new Frame(MessageType.LONGS_VALUE.id(), 0, 1, manyLongs)));
        byte[] bigProof = new WireWriter().putBytes(new byte[65]).toByteArray();
        assertThrows(WireFormatException.class,
            () -> MessageType.decode(new Frame(MessageType.PEER_PROOF.id(), 0, 1, bigProof)));
    }

    @Test
    void shouldRejectACountLargerThanTheBytesLeft() {
        // 1000 longs announced, 8 bytes present.
        byte[] b = new WireWriter().putInt(1000).putLong(1).toByteArray();
        assertThrows(WireFormatException.class,
            () -> MessageType.decode(new Frame(MessageType.LONGS_VALUE.id(), 0, 1, b)));
        byte[] rows = new WireWriter().putInt(0).putInt(ControlMessage.MAX_LIST).toByteArray();
        assertThrows(WireFormatException.class, () -> MessageType.decode(new Frame(MessageType.TABLE.id(), 0, 1, rows)));
    }
}
