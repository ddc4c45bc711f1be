package io.softcmi.cmi.notify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.cmi.internal.PollBudget;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class WaitWindowTest {
    @BeforeEach
    void noBackOff() {
        WaitWindow.endBackOff();
    }

    @AfterEach
    void noBackOffAfter() {
        WaitWindow.endBackOff();
    }

    @Test
    void shouldPollTheMinimumUntilWaitsAreMeasured() {
        assertEquals(WaitWindow.MIN_NANOS, new WaitWindow().budget());
    }

    @Test
    void shouldPollAboutTwiceTheRecentWaitsWithinItsBounds() {
        WaitWindow w = new WaitWindow();
        for (int i = 0; i < 100; i++) {
            w.ended(WaitWindow.MAX_NANOS / 4);
        }
        long b = w.budget();
        assertTrue(b >= WaitWindow.MAX_NANOS / 2 - 1_000 && b <= WaitWindow.MAX_NANOS / 2, "budget " + b);
        for (int i = 0; i < 100; i++) {
            w.ended(1_000);
        }
        assertEquals(WaitWindow.MIN_NANOS, w.budget(), "short waits poll the minimum");
    }

    @Test
    void shouldOnlyLookBrieflyWhileWaitsAreLongerThanTheLongestPollAndRecover() {
        WaitWindow w = new WaitWindow();
        for (int i = 0; i < 100; i++) {
            w.ended(10 * WaitWindow.MAX_NANOS);
        }
        assertEquals(0, w.budget(), "a partner that computes much longer: block after a short look");
        for (int i = 0; i < 100; i++) {
            w.ended(WaitWindow.MIN_NANOS);
        }
        assertTrue(w.budget() > 0, "waits that became short bring polling back");
    }

    @Test
    void shouldEndAPollAtItsBudgetOrWhenDescheduledAndThenBackOff() {
        long t = System.nanoTime() + 10_000_000_000L; // the back-off then lasts past the test's asserts
        assertTrue(WaitWindow.keepPolling(1, t + 1_000_000, t, t + 10_000));
        assertFalse(WaitWindow.keepPolling(1, t + 1_000_000, t, t + 1_000_000), "the budget is spent");
        assertTrue(WaitWindow.keepPolling(WaitWindow.SPINS + 1, t + 10_000_000, t, t + WaitWindow.PREEMPTED_NANOS),
            "a yield may hand the core over for a while");
        assertFalse(WaitWindow.backingOff());
        assertFalse(WaitWindow.keepPolling(1, t + 10_000_000, t, t + WaitWindow.PREEMPTED_NANOS),
            "descheduled between two spinning looks");
        assertTrue(WaitWindow.backingOff());
        assertEquals(0, new WaitWindow().budget(), "nobody polls past the short look during the back-off");
        assertTrue(PollBudget.contended(), "it is the JVM's one back-off: the data and control paths stop polling too");
    }

    @Test
    void shouldBackOffWhenADataPathPollerWasDescheduled() {
        long t = System.nanoTime() + 10_000_000_000L;
        assertFalse(PollBudget.stillScheduled(t, t + PollBudget.PREEMPTED_NANOS + 1));
        assertEquals(0, new WaitWindow().budget(), "a preempted poller anywhere in the JVM shortens these waits too");
    }

    @Test
    void shouldReturnAsSoonAsTheConditionHoldsAndLookBrieflyWithoutBudget() {
        AtomicInteger looks = new AtomicInteger();
        assertTrue(WaitWindow.poll(WaitWindow.MAX_NANOS, System.nanoTime(), () -> looks.incrementAndGet() == 1));
        assertEquals(1, looks.get(), "the first look comes before any test of time");
        looks.set(0);
        assertFalse(WaitWindow.poll(0, System.nanoTime(), () -> looks.incrementAndGet() < 0));
        assertEquals(WaitWindow.SHORT_LOOKS, looks.get());
    }
}
