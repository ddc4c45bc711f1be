package io.softcmi.vmmc.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The {@code latency} sample's untimed round trips ({@link Latency#warmUp}). */
class LatencyWarmUpTest {
    @AfterEach
    void clear() {
        System.clearProperty(Latency.WARM_UP_PROPERTY);
    }

    @Test
    void byDefaultATenthOfTheIterationsAndAtLeastTheMinimum() {
        assertEquals(Latency.MIN_WARM_UP, Latency.warmUp(5000));
        assertEquals(Latency.MIN_WARM_UP, Latency.warmUp(1));
        assertEquals(100_000, Latency.warmUp(1_000_000));
    }

    @Test
    void thePropertySetsTheCount() {
        System.setProperty(Latency.WARM_UP_PROPERTY, "500");
        assertEquals(500, Latency.warmUp(5000));
        System.setProperty(Latency.WARM_UP_PROPERTY, " 1 ");
        assertEquals(1, Latency.warmUp(1_000_000));
    }

    @Test
    void aBadCountIsRefusedByName() {
        for (String bad : new String[] {"0", "-3", "many", ""}) {
            System.setProperty(Latency.WARM_UP_PROPERTY, bad);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Latency.warmUp(10));
            assertTrue(e.getMessage().contains(Latency.WARM_UP_PROPERTY) && e.getMessage().contains("'" + bad + "'"), e.getMessage());
        }
    }
}
