package io.softcmi.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.softcmi.cmi.CmiError;
import org.junit.jupiter.api.Test;

/**
 * The node's CMI memory with the contexts' caches charged to it ({@link MemoryAccount#cacheHeld},
 * docs/cache.md "Counters"): what they hold leaves {@code max_mem_avail}, an allocation or a
 * reservation that needs it fails with {@code NOMEM}, and it comes back when a report says less
 * or the context ends.
 */
class MemoryAccountTest {
    private static final long MIB = 1 << 20;

    @Test
    void cachesTakeTheirMemoryOutOfWhatIsAvailable() {
        MemoryAccount m = new MemoryAccount(8 * MIB);
        m.charge(null, 2 * MIB);
        m.cacheHeld(0, 3 * MIB);
        assertEquals(3 * MIB, m.caches());
        assertEquals(3 * MIB, m.available());
        m.cacheHeld(3 * MIB, MIB); // the next report: the cache shrank
        assertEquals(5 * MIB, m.available());
        m.cacheHeld(MIB, 0); // the context ended
        assertEquals(0, m.caches());
        assertEquals(6 * MIB, m.available());
    }

    @Test
    void anAllocationTheCachesLeaveNoRoomForFailsWithNomem() {
        MemoryAccount m = new MemoryAccount(8 * MIB);
        m.cacheHeld(0, 7 * MIB);
        NodeException e = assertThrows(NodeException.class, () -> m.charge(null, 2 * MIB));
        assertEquals(CmiError.NOMEM, e.error());
        assertEquals(MIB, m.available(), "the refused allocation took nothing");
        m.charge(null, MIB);
        assertEquals(0, m.available());
    }

    @Test
    void aReservationTheCachesLeaveNoRoomForFailsWithNomem() {
        MemoryAccount m = new MemoryAccount(8 * MIB);
        m.cacheHeld(0, 6 * MIB);
        MemoryReservation r = new MemoryReservation(1, "test", 4 * MIB);
        assertEquals(CmiError.NOMEM, assertThrows(NodeException.class, () -> m.add(r)).error());
        assertEquals(2 * MIB, m.available());
    }

    @Test
    void cachesThatOutgrowTheNodeLeaveNothingAvailableAndNeverLessThanNothing() {
        MemoryAccount m = new MemoryAccount(8 * MIB);
        m.charge(null, 4 * MIB);
        m.cacheHeld(0, 6 * MIB); // a cache grows in its own process: the node cannot refuse it
        assertEquals(0, m.available());
        assertEquals(CmiError.NOMEM, assertThrows(NodeException.class, () -> m.charge(null, 1)).error());
        m.release(null, 4 * MIB);
        assertEquals(2 * MIB, m.available());
    }
}
