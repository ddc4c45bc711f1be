package io.softcmi.node;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * {@link WordRuns}: a DIFF's runs reach the mapping word by word, so one 8-byte store that a
 * cache sends as several runs is never seen half-applied, and bytes outside the runs (another
 * writer's, in false sharing) stay as they are.
 */
class WordRunsTest {
    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();

    /** Writes {@code runs} (pairs offset, length) of {@code src} (a whole-segment image) into {@code target}. */
    private static void apply(MemorySegment target, byte[] src, int... runs) {
        WordRuns w = new WordRuns(target);
        MemorySegment in = MemorySegment.ofArray(src);
        for (int i = 0; i < runs.length; i += 2) {
            w.run(in, runs[i], runs[i], runs[i + 1]);
        }
        w.flush();
    }

    private static byte[] expected(byte[] before, byte[] src, int... runs) {
        byte[] e = before.clone();
        for (int i = 0; i < runs.length; i += 2) {
            System.arraycopy(src, runs[i], e, runs[i], runs[i + 1]);
        }
        return e;
    }

    private static byte[] pattern(int size, int salt) {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = (byte) (i * 31 + salt);
        }
        return b;
    }

    @Test
    void shouldWriteOnlyTheBytesOfTheRunsAndKeepTheOthers() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment target = arena.allocate(64, 8);
            byte[] before = pattern(64, 1);
            MemorySegment.copy(before, 0, target, ValueLayout.JAVA_BYTE, 0, 64);
            byte[] src = pattern(64, 100);
            int[] runs = {0, 1, 4, 4, 9, 2, 13, 20, 40, 8, 50, 1, 63, 1};
            apply(target, src, runs);
            assertArrayEquals(expected(before, src, runs), target.toArray(ValueLayout.JAVA_BYTE));
        }
    }

    @Test
    void shouldWriteTheTailOfASegmentThatIsNoWholeWord() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment target = arena.allocate(13, 8);
            byte[] before = pattern(13, 7);
            MemorySegment.copy(before, 0, target, ValueLayout.JAVA_BYTE, 0, 13);
            byte[] src = pattern(13, 50);
            int[] runs = {2, 3, 7, 6};
            apply(target, src, runs);
            assertArrayEquals(expected(before, src, runs), target.toArray(ValueLayout.JAVA_BYTE));
        }
    }

    @Test
    void shouldWriteLongRunsOfWholeWordsFromAnUnalignedSourceWithPartWordsAtBothEnds() {
        try (Arena arena = Arena.ofConfined()) {
            int size = 4096;
            MemorySegment target = arena.allocate(size, 8);
            byte[] before = pattern(size, 3);
            MemorySegment.copy(before, 0, target, ValueLayout.JAVA_BYTE, 0, size);
            byte[] src = pattern(size + 5, 77);
            WordRuns w = new WordRuns(target);
            MemorySegment in = MemorySegment.ofArray(src);
            // the source lags the target by 5 bytes (as runs inside a frame do): whole words read unaligned
            int[][] runs = {{3, 1000}, {1003, 5}, {1016, 2048}, {3072, 1024}};
            for (int[] r : runs) {
                w.run(in, r[0] + 5, r[0], r[1]);
            }
            w.flush();
            byte[] expected = before.clone();
            for (int[] r : runs) {
                System.arraycopy(src, r[0] + 5, expected, r[0], r[1]);
            }
            assertArrayEquals(expected, target.toArray(ValueLayout.JAVA_BYTE));
        }
    }

    @Test
    void shouldRefuseARunOutsideTheMapping() {
        try (Arena arena = Arena.ofConfined()) {
            WordRuns w = new WordRuns(arena.allocate(16, 8));
            MemorySegment in = MemorySegment.ofArray(new byte[32]);
            assertThrows(IndexOutOfBoundsException.class, () -> w.run(in, 0, 12, 8));
        }
    }

    /**
     * A word alternates between two values that differ in byte 0 and bytes 4 to 7, each change
     * sent as those two runs (as a cache's diff sends it); a reader of the word must only ever
     * see one of the two values. Bounded in count; a half-applied word fails it.
     */
    @Test
    void shouldNeverShowAWordHalfWrittenWhenOneStoreArrivesAsTwoRuns() throws InterruptedException {
        long a = 0x1111111100000001L;
        long b = 0x2222222200000002L;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment target = arena.allocate(8, 8);
            WORD.setVolatile(target, 0L, a);
            byte[][] images = {new byte[8], new byte[8]};
            MemorySegment.ofArray(images[0]).set(ValueLayout.JAVA_LONG_UNALIGNED, 0, a);
            MemorySegment.ofArray(images[1]).set(ValueLayout.JAVA_LONG_UNALIGNED, 0, b);
            int lowByte = java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.LITTLE_ENDIAN ? 0 : 7;
            int highStart = lowByte == 0 ? 4 : 0;
            AtomicLong torn = new AtomicLong();
            Thread reader = Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 2_000_000; i++) {
                    long v = (long) WORD.getVolatile(target, 0L);
                    if (v != a && v != b) {
                        torn.compareAndSet(0, v);
                    }
                }
            });
            for (int i = 0; i < 200_000 && reader.isAlive(); i++) {
                MemorySegment in = MemorySegment.ofArray(images[(i + 1) & 1]);
                WordRuns w = new WordRuns(target);
                w.run(in, lowByte, lowByte, 1);
                w.run(in, highStart, highStart, 4);
                w.flush();
            }
            reader.join();
            assertEquals(0, torn.get(), () -> "a reader saw 0x" + Long.toHexString(torn.get()));
        }
    }
}
