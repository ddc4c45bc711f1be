package io.softcmi.wire;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A deterministic mutation fuzzer for the control-protocol decoder: valid frames of every message
 * type are corrupted (bit flips, truncation, random bytes, corrupted length fields, inserted and
 * deleted bytes, another type id) and decoded. Decoding must return a message or throw
 * {@link WireFormatException} (or, reading a stream, {@link EOFException} when it ends inside a
 * frame); any other exception (an NPE, a {@code NegativeArraySizeException}, an index out of
 * bounds, an {@code OutOfMemoryError}) is a decoder bug. Fixed seeds, so a failure reproduces; the
 * failing input is printed in hex.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WireFuzzTest {
    private static final List<byte[]> FRAMES = ControlMessageTest.samples().stream()
        .map(m -> {
            ByteBuffer b = FrameIO.encode(MessageType.toFrame(m, 0x1122334455667788L));
            return Arrays.copyOf(b.array(), b.limit());
        })
        .toList();
    /** Lengths that sit on the edges of every bounds check. */
    private static final int[] EDGE_INTS = {0, 1, -1, 2, 7, 8, 15, 16, 63, 64, 65, 255, 256, 4095, 4096, 4097,
        65535, 65536, 65537, Frame.HEADER_AFTER_LENGTH - 1, Frame.HEADER_AFTER_LENGTH, Frame.MAX_LENGTH,
        Frame.MAX_LENGTH + 1, Integer.MAX_VALUE, Integer.MAX_VALUE - 3, Integer.MIN_VALUE, 0x80000000 >>> 1};

    @Test
    void shouldDecodeOrRejectMutatedPayloads() {
        fuzzPayloads(0x5eed_0001L, 200_000);
    }

    @Test
    void shouldReadOrRejectMutatedFrameStreams() {
        fuzzStreams(0x5eed_0002L, 30_000);
    }

    private static void fuzzPayloads(long seed, int iterations) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int decoded = 0;
        for (int i = 0; i < iterations; i++) {
            byte[] frame = FRAMES.get(rnd.nextInt(FRAMES.size()));
            byte[] payload = mutate(rnd, Arrays.copyOfRange(frame, 16, frame.length), 0);
            int type = rnd.nextInt(16) == 0 ? rnd.nextInt(256) : frame[5] & 0xff;
            try {
                MessageType.decode(new Frame(type, 0, 0, payload));
                decoded++;
            } catch (WireFormatException expected) {
                // rejected: fine
            } catch (Throwable t) {
                fail("seed " + seed + " iteration " + i + ": type " + type + " payload " + hex(payload)
                    + " threw " + t, t);
            }
        }
        assertTrue(decoded > 0 && decoded < iterations, "mutations should be both accepted and rejected: " + decoded);
    }

    private static void fuzzStreams(long seed, int iterations) {
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int i = 0; i < iterations; i++) {
            byte[] first = FRAMES.get(rnd.nextInt(FRAMES.size()));
            byte[] second = FRAMES.get(rnd.nextInt(FRAMES.size()));
            byte[] stream = mutate(rnd, concat(first, second), 4);
            try {
                var ch = Channels.newChannel(new ByteArrayInputStream(stream));
                Frame f;
                while ((f = FrameIO.read(ch)) != null) {
                    MessageType.decode(f);
                }
            } catch (WireFormatException | EOFException expected) {
                // rejected: fine
            } catch (Throwable t) {
                fail("seed " + seed + " iteration " + i + ": stream " + hex(stream) + " threw " + t, t);
            }
        }
    }

    /**
     * Applies one to three mutations.
     *
     * @param lengthFieldAt where a frame length field sits (mutated on purpose), or 0 for none
     */
    private static byte[] mutate(SplittableRandom rnd, byte[] in, int lengthFieldAt) {
        byte[] b = in;
        int rounds = 1 + rnd.nextInt(3);
        for (int r = 0; r < rounds; r++) {
            switch (rnd.nextInt(8)) {
                case 0 -> { // flip 1..8 bits
                    if (b.length > 0) {
                        for (int k = 1 + rnd.nextInt(8); k > 0; k--) {
                            int pos = rnd.nextInt(b.length);
                            b[pos] ^= (byte) (1 << rnd.nextInt(8));
                        }
                    }
                }
                case 1 -> b = Arrays.copyOf(b, b.length == 0 ? 0 : rnd.nextInt(b.length)); // truncate
                case 2 -> { // overwrite a run with random bytes
                    if (b.length > 0) {
                        int pos = rnd.nextInt(b.length);
                        int len = Math.min(b.length - pos, 1 + rnd.nextInt(16));
                        for (int k = 0; k < len; k++) {
                            b[pos + k] = (byte) rnd.nextInt(256);
                        }
                    }
                }
                case 3 -> { // an edge-case int anywhere: corrupts length prefixes and counts
                    if (b.length >= 4) {
                        putInt(b, rnd.nextInt(b.length - 3), EDGE_INTS[rnd.nextInt(EDGE_INTS.length)]);
                    }
                }
                case 4 -> { // the frame's own length field: edge values or off by a little
                    if (b.length >= lengthFieldAt + 4 && lengthFieldAt > 0) {
                        int old = ByteBuffer.wrap(b, 0, 4).getInt();
                        int v = rnd.nextBoolean() ? old + rnd.nextInt(-16, 17) : edgeBelowMax(rnd);
                        putInt(b, 0, v);
                    } else if (b.length > 0) {
                        b[rnd.nextInt(b.length)] = (byte) 0xff;
                    }
                }
                case 5 -> { // insert random bytes
                    int pos = rnd.nextInt(b.length + 1);
                    byte[] extra = new byte[1 + rnd.nextInt(8)];
                    rnd.nextBytes(extra);
                    b = concat(Arrays.copyOf(b, pos), concat(extra, Arrays.copyOfRange(b, pos, b.length)));
                }
                case 6 -> { // delete a run
                    if (b.length > 0) {
                        int pos = rnd.nextInt(b.length);
                        int len = Math.min(b.length - pos, 1 + rnd.nextInt(8));
                        b = concat(Arrays.copyOf(b, pos), Arrays.copyOfRange(b, pos + len, b.length));
                    }
                }
                default -> { // wholly random input of a similar size
                    b = new byte[rnd.nextInt(Math.max(1, in.length * 2))];
                    rnd.nextBytes(b);
                }
            }
        }
        return b;
    }

    /**
     * An edge length for the frame header. {@link FrameIO} allocates the body once the length
     * passed its bounds, as it may; lengths near 16 MiB are kept rare so the fuzzer stays fast.
     */
    private static int edgeBelowMax(SplittableRandom rnd) {
        int v = EDGE_INTS[rnd.nextInt(EDGE_INTS.length)];
        return v == Frame.MAX_LENGTH && rnd.nextInt(64) != 0 ? Frame.MAX_LENGTH + 1 : v;
    }

    private static void putInt(byte[] b, int pos, int v) {
        ByteBuffer.wrap(b).putInt(pos, v);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static String hex(byte[] b) {
        return java.util.HexFormat.of().formatHex(b);
    }
}
