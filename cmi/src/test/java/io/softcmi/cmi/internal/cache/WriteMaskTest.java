package io.softcmi.cmi.internal.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.BitSet;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link WriteMask} marks and walks exactly the bytes a {@link BitSet} would. */
class WriteMaskTest {
    @Test
    void shouldAgreeWithABitSetOnRandomStores() {
        SplittableRandom random = new SplittableRandom(42);
        for (int lineSize : new int[] {8, 64, 256, 1024, 4096}) {
            for (int trial = 0; trial < 200; trial++) {
                long[] mask = WriteMask.of(lineSize);
                BitSet expected = new BitSet(lineSize);
                int stores = 1 + random.nextInt(8);
                for (int i = 0; i < stores; i++) {
                    int at = random.nextInt(lineSize);
                    int n = 1 + random.nextInt(Math.min(lineSize - at, random.nextBoolean() ? 8 : lineSize));
                    WriteMask.set(mask, at, n);
                    expected.set(at, at + n);
                }
                for (int from = 0; from < lineSize; from++) {
                    int set = expected.nextSetBit(from);
                    int f = from;
                    assertEquals(set, WriteMask.nextSet(mask, from), () -> "nextSet " + f + " of " + expected);
                    assertEquals(Math.min(expected.nextClearBit(from), lineSize), Math.min(WriteMask.nextClear(mask, from), lineSize),
                        () -> "nextClear " + f + " of " + expected);
                }
            }
        }
    }

    @Test
    void shouldMarkWholeWordsAndWholeLines() {
        long[] mask = WriteMask.of(1024);
        WriteMask.set(mask, 0, 1024);
        assertEquals(0, WriteMask.nextSet(mask, 0));
        assertEquals(1024, WriteMask.nextClear(mask, 0));
        mask = WriteMask.of(1024);
        WriteMask.set(mask, 120, 8);
        assertEquals(120, WriteMask.nextSet(mask, 0));
        assertEquals(128, WriteMask.nextClear(mask, 120));
        assertEquals(-1, WriteMask.nextSet(mask, 128));
    }
}
