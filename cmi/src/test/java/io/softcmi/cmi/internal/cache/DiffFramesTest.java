package io.softcmi.cmi.internal.cache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.wire.DataProtocol;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The {@code DIFF} encoding of dirty lines ({@link DiffFrames}): decoded and applied to an image
 * of the home, the frames give back exactly the bytes stored and never a byte that was not, for
 * random write masks (first and last byte of a line, whole lines, lines cut short by the end of
 * the segment), and a dense megabyte goes in two frames once the buffer has grown.
 */
class DiffFramesTest {
    /** A transport that keeps a copy of every frame (the frame buffer is reused after {@code diff} returns). */
    private static final class Recorder implements LineTransport {
        final List<byte[]> frames = new ArrayList<>();

        @Override
        public Pending fill(long offset, byte[] dst, int dstOffset, int length) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Pending diff(MemorySegment runs) {
            frames.add(runs.toArray(ValueLayout.JAVA_BYTE));
            return new FakeHome.Done(0, 0, 0);
        }

        @Override
        public Pending acquire(long sinceEpoch, byte[] dst) {
            throw new UnsupportedOperationException();
        }
    }

    /** Applies every run of {@code frames} to {@code image}, marking each byte written in {@code written}. */
    private static void apply(List<byte[]> frames, byte[] image, boolean[] written) {
        for (byte[] f : frames) {
            assertTrue(f.length <= DataProtocol.MAX_DIFF_PAYLOAD, "frame of " + f.length + " bytes");
            ByteBuffer b = ByteBuffer.wrap(f).order(ByteOrder.LITTLE_ENDIAN);
            while (b.hasRemaining()) {
                long off = b.getLong();
                int len = b.getInt();
                assertTrue(len > 0, "empty run at " + off);
                for (int i = 0; i < len; i++) {
                    int at = (int) (off + i);
                    if (written[at]) {
                        throw new AssertionError("byte " + at + " sent twice");
                    }
                    written[at] = true;
                    image[at] = b.get();
                }
            }
        }
    }

    @Test
    void shouldEncodeRandomWriteMasksSoThatExactlyTheStoredBytesArriveAtTheHome() {
        long seed = 0x5EEDL;
        SplittableRandom random = new SplittableRandom(seed);
        int line = 1024;
        for (int trial = 0; trial < 200; trial++) {
            int lines = 1 + random.nextInt(40);
            int size = lines * line - (random.nextBoolean() ? random.nextInt(line - 1) : 0); // last line may be cut short
            byte[] cache = new byte[lines * line];
            random.nextBytes(cache);
            boolean[] stored = new boolean[size];
            Recorder t = new Recorder();
            DiffFrames frames = new DiffFrames(t, new CacheStats());
            List<SegmentCache.Flight> flights = new ArrayList<>();
            frames.begin(flights);
            for (int l = 0; l < lines; l++) {
                int valid = Math.min(line, size - l * line);
                long[] mask = WriteMask.of(line);
                switch (random.nextInt(6)) {
                    case 0 -> { } // clean line among dirty ones: no bytes of it may go
                    case 1 -> WriteMask.set(mask, 0, line); // fully stored
                    case 2 -> { // first and last byte only
                        WriteMask.set(mask, 0, 1);
                        WriteMask.set(mask, line - 1, 1);
                    }
                    default -> {
                        for (int k = random.nextInt(20); k >= 0; k--) {
                            int at = random.nextInt(line);
                            WriteMask.set(mask, at, 1 + random.nextInt(Math.min(64, line - at)));
                        }
                    }
                }
                for (int i = 0; i < valid; i++) {
                    stored[l * line + i] = (mask[i >>> 6] >>> i & 1) != 0;
                }
                frames.addLine((long) l * line, Arrays.copyOfRange(cache, l * line, (l + 1) * line), mask, valid);
            }
            frames.end();
            byte[] image = new byte[size];
            boolean[] written = new boolean[size];
            apply(t.frames, image, written);
            assertEquals(t.frames.size(), flights.size(), "one flight per frame");
            for (int i = 0; i < size; i++) {
                if (written[i] != stored[i] || stored[i] && image[i] != cache[i]) {
                    throw new AssertionError("seed " + seed + " trial " + trial + ": byte " + i + " stored " + stored[i]
                        + ", sent " + written[i] + ", arrived " + image[i] + " for " + cache[i]);
                }
            }
        }
    }

    @Test
    void shouldWriteBackADenseMegabyteInTwoFramesOnceTheBufferHasGrown() {
        int line = 1024;
        int lines = 1024;
        byte[] data = new byte[line];
        Arrays.fill(data, (byte) 7);
        Recorder t = new Recorder();
        DiffFrames frames = new DiffFrames(t, new CacheStats());
        int last = 0;
        for (int round = 0; round < 8; round++) {
            int before = t.frames.size();
            frames.begin(new ArrayList<>());
            for (int l = 0; l < lines; l++) {
                long[] mask = WriteMask.of(line);
                WriteMask.set(mask, 0, line);
                frames.addLine((long) l * line, data, mask, line);
            }
            frames.end();
            last = t.frames.size() - before;
        }
        assertEquals(2, last, "a dense megabyte in frames of up to " + DataProtocol.MAX_DIFF_PAYLOAD + " bytes");
        byte[] image = new byte[lines * line];
        boolean[] written = new boolean[image.length];
        apply(t.frames.subList(t.frames.size() - 2, t.frames.size()), image, written);
        byte[] want = new byte[image.length];
        Arrays.fill(want, (byte) 7);
        assertArrayEquals(want, image);
    }

    @Test
    void shouldGrowTheFrameByDoublingUpToTheLargestFrame() {
        int size = DiffFrames.FIRST_FRAME;
        List<Integer> sizes = new ArrayList<>(List.of(size));
        while (size < DataProtocol.MAX_DIFF_PAYLOAD) {
            size = DiffFrames.grown(size);
            sizes.add(size);
        }
        assertEquals(List.of(32 * 1024, 64 * 1024, 128 * 1024, 256 * 1024, DataProtocol.MAX_DIFF_PAYLOAD), sizes);
    }
}
