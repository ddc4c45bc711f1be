package io.softcmi.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** {@link DataProtocol#bodyBeforeLastWord}: where a store is split to write its last word last. */
class LastWordTest {
    @Test
    void shouldNeverSplitAStoreWithinOneAlignedWord() {
        assertEquals(8, DataProtocol.bodyBeforeLastWord(0, 8), "a putLong is one copy");
        assertEquals(8, DataProtocol.bodyBeforeLastWord(64, 8));
        assertEquals(4, DataProtocol.bodyBeforeLastWord(4, 4), "a 4-byte word in the upper half of an 8-byte one");
        assertEquals(1, DataProtocol.bodyBeforeLastWord(7, 1));
        assertEquals(3, DataProtocol.bodyBeforeLastWord(5, 3));
    }

    @Test
    void shouldSplitAtTheAlignedWordThatHoldsTheLastByte() {
        assertEquals(8, DataProtocol.bodyBeforeLastWord(0, 16), "two words: the second last");
        assertEquals(8, DataProtocol.bodyBeforeLastWord(0, 12), "the last word is the partial one at 8..11");
        assertEquals(4, DataProtocol.bodyBeforeLastWord(4, 8), "4..11 crosses a word: 4..7 first, 8..11 last");
        assertEquals(4, DataProtocol.bodyBeforeLastWord(4, 12), "4..15: 8..15 last");
        assertEquals(1024 * 1024 - 8, DataProtocol.bodyBeforeLastWord(0, 1024 * 1024));
        assertEquals(3, DataProtocol.bodyBeforeLastWord(13, 4), "13..16: 16 alone last");
    }
}
