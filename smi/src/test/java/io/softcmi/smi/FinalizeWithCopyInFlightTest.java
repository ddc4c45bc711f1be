package io.softcmi.smi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@code SMI_Finalize} while an {@code SMI_Imemcpy} of this process still runs on its copy thread
 * (a job of one process on the embedded CMI node).
 */
class FinalizeWithCopyInFlightTest {
    private static final long SIZE = 16L << 20;
    private static final int ROUNDS = 20;

    @Test
    void shouldFinishACopyPostedBeforeFinalizeBeforeItsRegionGoes() {
        int incomplete = 0;
        for (int round = 0; round < ROUNDS; round++) {
            // Shared: the copy thread writes dst.
            try (Arena arena = Arena.ofShared()) {
                MemorySegment dst = arena.allocate(SIZE, 8);
                Smi smi = Smi.init(new String[0]);
                try {
                    SmiRegion r = smi.createShreg(RegionType.UNDIVIDED, Smi.initReginfo(SIZE, 0), Set.of());
                    MemorySegment pattern = arena.allocate(SIZE, 8);
                    pattern.fill((byte) 0x5a);
                    r.put(0, pattern);
                    smi.imemcpy(dst, r.at(0), SIZE, Set.of());
                } finally {
                    smi.close();
                }
                incomplete += dst.get(ValueLayout.JAVA_BYTE, SIZE - 1) == 0x5a ? 0 : 1;
            }
        }
        assertEquals(0, incomplete, "copies cut short by SMI_Finalize, of " + ROUNDS);
    }
}
