package io.softcmi.cmi.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiException;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.RemoteSegmentHandle;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

class HandleCodecTest {
    private static final byte[] ID = HexFormat.of().parseHex("00112233445566778899aabbccddeeff");
    private static final byte[] SECRET = HexFormat.of().parseHex("f0e1d2c3b4a5968778695a4b3c2d1e0f");
    private static final NodeAddressImpl NODE = new NodeAddressImpl(ID, "node-a.example", 40123);
    private static final RemoteSegmentHandleImpl RSEG =
        new RemoteSegmentHandleImpl(NODE, 7, 3, 9, 32L << 20, 0b1010, true);
    private static final byte[] BOUND = HexFormat.of().parseHex("0102030405060708090a0b0c0d0e0f10");
    private static final TokenImpl TOKEN = new TokenImpl(ID, 7, 12, BOUND, SECRET);

    /** The three decoders, each with a valid encoding. */
    private record Kind(String name, byte[] valid, Function<byte[], ?> decoder) {
    }

    private static final List<Kind> KINDS = List.of(
        new Kind("node address", NODE.toBytes(), NodeAddress::fromBytes),
        new Kind("remote segment handle", RSEG.toBytes(), RemoteSegmentHandle::fromBytes),
        new Kind("token", TOKEN.toBytes(), CmiToken::fromBytes));

    private static void assertInval(Executable call, String what) {
        CmiException e = assertThrows(CmiException.class, call, what);
        assertEquals(CmiError.INVAL, e.error(), what + ": " + e.getMessage());
    }

    @Test
    void shouldRoundTripANodeAddress() {
        NodeAddress back = NodeAddress.fromBytes(NODE.toBytes());
        assertEquals(NODE, back);
        assertEquals(NODE.hashCode(), back.hashCode());
        NodeAddressImpl impl = (NodeAddressImpl) back;
        assertArrayEquals(ID, impl.nodeId());
        assertEquals("node-a.example", impl.host());
        assertEquals(40123, impl.port());
    }

    @Test
    void shouldRoundTripPortAndHostEdges() {
        for (NodeAddressImpl a : List.of(new NodeAddressImpl(ID, "", 0), new NodeAddressImpl(ID, "h", 65535),
                new NodeAddressImpl(ID, "x".repeat(255), 1), new NodeAddressImpl(ID, "::1", 256))) {
            assertEquals(a, NodeAddress.fromBytes(a.toBytes()), a.toString());
        }
    }

    @Test
    void shouldEncodeOnlyAddressesItCanDecode() {
        String host = "\u00e9".repeat(200); // 200 chars, 400 UTF-8 bytes
        NodeAddressImpl a;
        try {
            a = new NodeAddressImpl(ID, host, 1);
        } catch (IllegalArgumentException rejected) {
            return; // refusing it up front is as good as round-tripping it
        }
        assertEquals(a, NodeAddress.fromBytes(a.toBytes()));
    }

    @Test
    void shouldEncodeTheDocumentedNodeLayout() {
        byte[] b = new NodeAddressImpl(ID, "ab", 0x1234).toBytes();
        ByteBuffer buf = ByteBuffer.wrap(b);
        assertEquals(0x434d494e, buf.getInt(), "CMIN");
        assertEquals(1, buf.get(), "version");
        byte[] id = new byte[16];
        buf.get(id);
        assertArrayEquals(ID, id);
        assertEquals(0x1234, buf.getShort());
        assertEquals(2, buf.get());
        assertEquals('a', buf.get());
        assertEquals('b', buf.get());
        assertEquals(0, buf.remaining());
    }

    @Test
    void shouldRoundTripAnyToTheSameConstant() {
        byte[] b = NodeAddress.ANY.toBytes();
        assertEquals(24, b.length);
        assertSame(NodeAddress.ANY, NodeAddress.fromBytes(b));
        assertTrue(((NodeAddressImpl) NodeAddress.ANY).isAny());
        // An all-zero id is ANY whatever host and port came with it.
        assertSame(NodeAddress.ANY, NodeAddress.fromBytes(new NodeAddressImpl(new byte[16], "h", 9).toBytes()));
        assertNotEquals(NodeAddress.ANY, NODE);
    }

    @Test
    void shouldRoundTripARemoteSegmentHandle() {
        RemoteSegmentHandle back = RemoteSegmentHandle.fromBytes(RSEG.toBytes());
        assertEquals(RSEG, back);
        assertEquals(RSEG.hashCode(), back.hashCode());
        RemoteSegmentHandleImpl h = (RemoteSegmentHandleImpl) back;
        assertEquals(NODE, h.home());
        assertEquals(7, h.segmentId());
        assertEquals(3, h.generation());
        assertEquals(9, h.exportId());
        assertEquals(32L << 20, h.size());
        assertEquals(0b1010, h.segFlags());
        assertTrue(h.writeThrough());
        RemoteSegmentHandleImpl cached = new RemoteSegmentHandleImpl(NODE, 1, 0, 0, 4096, 0, false);
        assertEquals(cached, RemoteSegmentHandle.fromBytes(cached.toBytes()));
    }

    @Test
    void shouldRejectARemoteSegmentHandleWithImpossibleFields() {
        for (RemoteSegmentHandleImpl h : List.of(
                new RemoteSegmentHandleImpl((NodeAddressImpl) NodeAddress.ANY, 7, 1, 1, 4096, 0, false),
                new RemoteSegmentHandleImpl(NODE, 0, 1, 1, 4096, 0, false),
                new RemoteSegmentHandleImpl(NODE, -7, 1, 1, 4096, 0, false),
                new RemoteSegmentHandleImpl(NODE, 7, 1, 1, 0, 0, false),
                new RemoteSegmentHandleImpl(NODE, 7, 1, 1, -4096, 0, false))) {
            assertInval(() -> RemoteSegmentHandle.fromBytes(h.toBytes()), h.toString());
        }
    }

    @Test
    void shouldRejectTrailingBytesInsideTheHandlesNodeAddress() {
        byte[] node = Arrays.copyOf(NODE.toBytes(), NODE.toBytes().length + 1);
        ByteBuffer b = ByteBuffer.allocate(64 + node.length).putInt(0x434d4952).put((byte) 1)
            .putInt(node.length).put(node).putLong(7).putLong(1).putLong(1).putLong(4096).putInt(0).put((byte) 0);
        byte[] bytes = Arrays.copyOf(b.array(), b.position());
        assertInval(() -> RemoteSegmentHandle.fromBytes(bytes), "node address with a trailing byte");
    }

    @Test
    void shouldRoundTripAToken() {
        byte[] b = TOKEN.toBytes();
        assertEquals(HandleCodec.tokenSize(), b.length);
        CmiToken back = CmiToken.fromBytes(b);
        assertEquals(TOKEN, back);
        assertEquals(TOKEN.hashCode(), back.hashCode());
        TokenImpl t = (TokenImpl) back;
        assertArrayEquals(ID, t.homeNodeId());
        assertEquals(7, t.segmentId());
        assertEquals(12, t.tokenId());
        assertArrayEquals(BOUND, t.boundNodeId());
        assertTrue(!t.anyNode());
        assertTrue(t.secretMatches(SECRET));
        TokenImpl any = new TokenImpl(ID, 7, 13, new byte[16], SECRET);
        TokenImpl anyBack = (TokenImpl) CmiToken.fromBytes(any.toBytes());
        assertEquals(any, anyBack);
        assertTrue(anyBack.anyNode());
        assertTrue(!t.toString().contains(HexFormat.of().formatHex(SECRET)), "toString must not show the secret");
    }

    @Test
    void shouldRejectNullAndEmptyInput() {
        for (Kind k : KINDS) {
            assertInval(() -> k.decoder().apply(null), k.name() + " of null");
            assertInval(() -> k.decoder().apply(new byte[0]), k.name() + " of nothing");
        }
    }

    @Test
    void shouldRejectEveryTruncation() {
        for (Kind k : KINDS) {
            for (int cut = 0; cut < k.valid().length; cut++) {
                byte[] part = Arrays.copyOf(k.valid(), cut);
                assertInval(() -> k.decoder().apply(part), k.name() + " cut at " + cut);
            }
        }
    }

    @Test
    void shouldRejectTrailingBytes() {
        for (Kind k : KINDS) {
            byte[] longer = Arrays.copyOf(k.valid(), k.valid().length + 1);
            assertInval(() -> k.decoder().apply(longer), k.name() + " with a trailing byte");
        }
    }

    @Test
    void shouldRejectAWrongMagicOrVersion() {
        for (Kind k : KINDS) {
            for (int i = 0; i < 5; i++) {
                byte[] b = k.valid().clone();
                b[i] ^= 0x20;
                int at = i;
                assertInval(() -> k.decoder().apply(b), k.name() + " with byte " + at + " changed");
            }
            for (int version : new int[] {0, 2, 0xff}) {
                byte[] b = k.valid().clone();
                b[4] = (byte) version;
                assertInval(() -> k.decoder().apply(b), k.name() + " version " + version);
            }
        }
    }

    @Test
    void shouldRejectOneKindDecodedAsAnother() {
        for (Kind bytesOf : KINDS) {
            for (Kind decodedAs : KINDS) {
                if (bytesOf != decodedAs) {
                    assertInval(() -> decodedAs.decoder().apply(bytesOf.valid()),
                        bytesOf.name() + " decoded as " + decodedAs.name());
                }
            }
        }
    }

    @Test
    void shouldRecordInvalAsTheLastError() {
        assertInval(() -> CmiToken.fromBytes(new byte[] {1, 2, 3}), "garbage token");
        assertEquals(CmiError.INVAL, Cmi.lastError());
    }

    @Test
    void shouldDecodeOrRejectMutatedHandlesWithInvalOnly() {
        long seed = 0x5eed_cafeL;
        SplittableRandom rnd = new SplittableRandom(seed);
        int accepted = 0;
        int iterations = 100_000;
        for (int i = 0; i < iterations; i++) {
            Kind k = KINDS.get(rnd.nextInt(KINDS.size()));
            byte[] b = mutate(rnd, k.valid().clone());
            try {
                k.decoder().apply(b);
                accepted++;
            } catch (CmiException e) {
                if (e.error() != CmiError.INVAL) {
                    fail("seed " + seed + " iteration " + i + ": " + k.name() + " " + HexFormat.of().formatHex(b)
                        + " failed with " + e.error(), e);
                }
            } catch (Throwable t) {
                fail("seed " + seed + " iteration " + i + ": " + k.name() + " " + HexFormat.of().formatHex(b)
                    + " threw " + t, t);
            }
        }
        assertTrue(accepted > 0 && accepted < iterations, "mutations should be both accepted and rejected: " + accepted);
    }

    private static byte[] mutate(SplittableRandom rnd, byte[] b) {
        switch (rnd.nextInt(6)) {
            case 0 -> { // flip 1..4 bits past the header, so some mutants still decode
                for (int k = 1 + rnd.nextInt(4); k > 0; k--) {
                    int pos = rnd.nextInt(b.length);
                    b[pos] ^= (byte) (1 << rnd.nextInt(8));
                }
                return b;
            }
            case 1 -> {
                return Arrays.copyOf(b, rnd.nextInt(b.length + 8)); // truncate or pad with zeros
            }
            case 2 -> { // a length-like value anywhere (the host length byte, the inner length prefix)
                int pos = rnd.nextInt(b.length);
                int[] edges = {0, 1, 0x7f, 0x80, 0xfe, 0xff};
                b[pos] = (byte) edges[rnd.nextInt(edges.length)];
                if (pos + 4 <= b.length && rnd.nextBoolean()) {
                    int[] ints = {-1, Integer.MIN_VALUE, Integer.MAX_VALUE, 300, 301, 0, 24, 23};
                    ByteBuffer.wrap(b).putInt(pos, ints[rnd.nextInt(ints.length)]);
                }
                return b;
            }
            case 3 -> { // overwrite a run
                int pos = rnd.nextInt(b.length);
                for (int k = pos; k < Math.min(b.length, pos + 1 + rnd.nextInt(8)); k++) {
                    b[k] = (byte) rnd.nextInt(256);
                }
                return b;
            }
            case 4 -> { // random bytes after a valid header
                byte[] r = new byte[5 + rnd.nextInt(120)];
                rnd.nextBytes(r);
                System.arraycopy(b, 0, r, 0, 5);
                return r;
            }
            default -> { // wholly random
                byte[] r = new byte[rnd.nextInt(128)];
                rnd.nextBytes(r);
                return r;
            }
        }
    }
}
