package io.softcmi.smi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SpinPolicyTest {
    @Test
    void shouldPollFullyWhileWaitsEndWithinTheBudget() {
        SpinPolicy p = new SpinPolicy();
        for (int i = 0; i < 100; i++) {
            assertTrue(p.pollFully());
            p.ended(SpinPolicy.POLL_NS / 2);
        }
    }

    @Test
    void shouldStopPollingWhenWaitsAreLongAndProbeNowAndThen() {
        SpinPolicy p = new SpinPolicy();
        for (int i = 0; i < 50; i++) {
            p.pollFully();
            p.ended(10 * SpinPolicy.HIT_NS);
        }
        assertTrue(p.hitRate() < 0.5);
        int full = 0;
        for (int i = 0; i < 10 * SpinPolicy.PROBE_EVERY; i++) {
            if (p.pollFully()) {
                full++;
            }
            p.ended(10 * SpinPolicy.HIT_NS);
        }
        assertEquals(10, full, "one probe every " + SpinPolicy.PROBE_EVERY + " waits");
    }

    @Test
    void shouldKeepPollingWhenWaitsIncludeWakeUpsOfAFewHundredMicroseconds() {
        SpinPolicy p = new SpinPolicy();
        for (int i = 0; i < 100; i++) {
            p.ended(2 * SpinPolicy.POLL_NS);
        }
        assertTrue(p.pollFully(), "two processes that block would otherwise wait for each other's wake-ups for ever");
    }

    @Test
    void shouldPollFullyAgainOnceWaitsBecomeShort() {
        SpinPolicy p = new SpinPolicy();
        for (int i = 0; i < 50; i++) {
            p.ended(10 * SpinPolicy.HIT_NS);
        }
        assertFalse(p.hitRate() >= 0.5);
        for (int i = 0; i < 20; i++) {
            p.ended(1_000);
        }
        assertTrue(p.pollFully());
    }

    @Test
    void shouldBoundAShortPollInLooksAndAFullOneInTimeAndPreemption() {
        long t = 1_000_000_000L;
        assertTrue(SpinPolicy.keepPolling(SpinPolicy.SHORT_SPINS - 1, false, t, t, t));
        assertFalse(SpinPolicy.keepPolling(SpinPolicy.SHORT_SPINS, false, t, t, t));
        assertTrue(SpinPolicy.keepPolling(1_000, true, t, t + 10_000, t + 11_000));
        assertFalse(SpinPolicy.keepPolling(1, true, t, t, t + SpinPolicy.POLL_NS), "the budget is spent");
        assertFalse(SpinPolicy.keepPolling(1, true, t, t, t + SpinPolicy.PREEMPTED_NS), "descheduled between two looks");
    }
}
