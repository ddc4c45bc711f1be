package io.softcmi.smi.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.smi.SmiAddress;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class CopierTest {
    @Test
    void shouldMakeALoadBarrierAtMemwaitOnlyForACopyIntoARegion() {
        assertFalse(Copier.endsWithLoadBarrier(new Copier.MemoryEnd(MemorySegment.ofArray(new byte[8]))),
            "a copy into private memory needs no rmb (a round trip to every home of the cached imports)");
        assertTrue(Copier.endsWithLoadBarrier(new Copier.RegionEnd(new SmiAddress(null, 0))));
    }
}
