package io.softcmi.cmi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class CmiVersionTest {

    @Test
    void shouldReadVernoAsMajorTimesTenPlusMinor() {
        assertEquals(new CmiVersion(1, 0), CmiVersion.of(10));
        assertEquals(new CmiVersion(1, 1), CmiVersion.of(11));
        assertEquals(new CmiVersion(0, 0), CmiVersion.of(0));
        assertEquals(new CmiVersion(0, 9), CmiVersion.of(9));
        assertEquals(new CmiVersion(6553, 5), CmiVersion.of(65535));
        assertEquals(11, Cmi.LIBRARY_VERSION.verno());
    }

    @Test
    void shouldRoundTripEveryVerno() {
        for (int verno = 0; verno <= 0xFFFF; verno++) {
            CmiVersion v = CmiVersion.of(verno);
            assertEquals(verno, v.verno());
            assertEquals(verno / 10, v.major());
            assertEquals(verno % 10, v.minor());
        }
    }

    @Test
    void shouldRejectVernosOutsideSixteenBits() {
        assertThrows(IllegalArgumentException.class, () -> CmiVersion.of(-1));
        assertThrows(IllegalArgumentException.class, () -> CmiVersion.of(0x10000));
        assertThrows(IllegalArgumentException.class, () -> CmiVersion.of(Integer.MIN_VALUE));
        assertThrows(IllegalArgumentException.class, () -> CmiVersion.of(Integer.MAX_VALUE));
    }

    @Test
    void shouldRejectComponentsOutOfRange() {
        assertThrows(IllegalArgumentException.class, () -> new CmiVersion(-1, 0));
        assertThrows(IllegalArgumentException.class, () -> new CmiVersion(0, -1));
        assertThrows(IllegalArgumentException.class, () -> new CmiVersion(1, 10));
        assertThrows(IllegalArgumentException.class, () -> new CmiVersion(6554, 0));
        assertThrows(IllegalArgumentException.class, () -> new CmiVersion(6553, 6), "verno 65536 does not fit");
        assertEquals(65535, new CmiVersion(6553, 5).verno());
    }

    @Test
    void shouldPrintMajorDotMinor() {
        assertEquals("1.1", CmiVersion.of(11).toString());
        assertEquals("6553.5", CmiVersion.of(65535).toString());
    }
}
