package io.softcmi.cmi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The answer window of the control reader: bounded by the measured send-to-notice time, never
 * longer than its cap, closed when nothing was sent. No timing: measurements are fed in.
 */
class NoticeSpinTest {
    @Test
    void shouldOpenNoWindowWhenNothingWasSent() {
        assertEquals(0, new NoticeSpin().pollUntil(), "no send, no poll");
    }

    @Test
    void shouldBoundTheWindowByTwiceTheMeasuredTimeToTheAnswer() {
        NoticeSpin s = new NoticeSpin();
        assertEquals(NoticeSpin.MAX_NANOS / 2, s.window(), "before any measurement: half the cap");
        for (int i = 0; i < 100; i++) {
            s.measured(20_000, true);
        }
        assertTrue(Math.abs(s.window() - 40_000) < 2_000, "twice a steady 20 us, was " + s.window());
        for (int i = 0; i < 100; i++) {
            s.measured(1_500_000, false);
        }
        assertEquals(NoticeSpin.MAX_NANOS, s.window(), "slow answers: capped");
    }

    @Test
    void shouldIgnoreAnswersThatCameTooLateToSayAnything() {
        NoticeSpin s = new NoticeSpin();
        for (int i = 0; i < 100; i++) {
            s.measured(20_000, true);
        }
        long before = s.window();
        for (int i = 0; i < 100; i++) {
            s.measured(50_000_000, false); // a send nobody answered soon
            s.measured(-1, false);
        }
        assertEquals(before, s.window());
    }
}
