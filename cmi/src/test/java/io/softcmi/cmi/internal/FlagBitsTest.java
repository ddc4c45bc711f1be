package io.softcmi.cmi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.AttachFlag;
import io.softcmi.cmi.SegFlag;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FlagBitsTest {

    @Test
    void shouldMapEachFlagToTheBitOfItsOrdinal() {
        for (SegFlag f : SegFlag.values()) {
            assertEquals(1 << f.ordinal(), FlagBits.toBits(EnumSet.of(f)), f.name());
        }
        assertEquals(0, FlagBits.toBits(EnumSet.noneOf(SegFlag.class)));
        assertEquals(0, FlagBits.toBits(Set.<SegFlag>of()));
    }

    @Test
    void shouldRoundTripEverySubset() {
        int all = (1 << SegFlag.values().length) - 1;
        for (int bits = 0; bits <= all; bits++) {
            EnumSet<SegFlag> set = FlagBits.fromBits(bits, SegFlag.class);
            assertEquals(Integer.bitCount(bits), set.size());
            assertEquals(bits, FlagBits.toBits(set), Integer.toBinaryString(bits));
        }
        assertEquals(EnumSet.allOf(SegFlag.class), FlagBits.fromBits(all, SegFlag.class));
    }

    @Test
    void shouldIgnoreUnknownBits() {
        int unknown = ~((1 << SegFlag.values().length) - 1);
        assertTrue(FlagBits.fromBits(unknown, SegFlag.class).isEmpty());
        assertEquals(EnumSet.of(SegFlag.LOCK), FlagBits.fromBits(unknown | (1 << SegFlag.LOCK.ordinal()), SegFlag.class));
        assertEquals(EnumSet.allOf(AttachFlag.class), FlagBits.fromBits(-1, AttachFlag.class));
    }

    @Test
    void shouldWorkForEveryFlagEnum() {
        EnumSet<Access> access = EnumSet.allOf(Access.class);
        assertEquals(access, FlagBits.fromBits(FlagBits.toBits(access), Access.class));
    }
}
