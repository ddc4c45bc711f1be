package io.softcmi.cmi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The arrival window: a waiter polls only while messages have been coming at short intervals,
 * for at most {@code K} intervals after the last one and never past the cap, and never while the
 * machine's load says no. The clock and the load are injected; nothing is timed.
 */
class ArrivalWindowTest {
    private static final long CAP = 200_000;
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final AtomicBoolean busy = new AtomicBoolean();
    private final ArrivalWindow w = new ArrivalWindow(CAP, now::get, busy::get);

    /** {@code n} arrivals {@code gap} ns apart. */
    private void arrive(int n, long gap) {
        for (int i = 0; i < n; i++) {
            now.addAndGet(gap);
            w.arrived();
        }
    }

    @Test
    void shouldBlockBeforeAnyIntervalWasMeasured() {
        assertEquals(0, w.pollUntil(), "nothing arrived yet");
        arrive(1, 0);
        assertEquals(0, w.pollUntil(), "one arrival is no interval");
    }

    @Test
    void shouldPollForKIntervalsAfterTheLastArrivalWhenArrivalsAreFrequent() {
        arrive(40, 20_000); // a ping-pong at 20 us
        long last = now.get();
        assertTrue(Math.abs(w.interval() - 20_000) < 1_000, "the measured interval, was " + w.interval());
        now.addAndGet(5_000); // the waiter served the message and is about to wait
        long until = w.pollUntil();
        assertTrue(until != 0, "frequent arrivals: poll");
        assertTrue(Math.abs(until - (last + ArrivalWindow.K * w.interval())) < 1_000, "K intervals after the last arrival");
    }

    @Test
    void shouldNeverPollLongerThanTheCap() {
        arrive(40, 150_000); // short enough to poll, but K intervals would pass the cap
        long last = now.get();
        assertEquals(last + CAP, w.pollUntil(), "capped");
    }

    @Test
    void shouldBlockWhenArrivalsAreFarApart() {
        arrive(40, 500_000); // slower than the cap: a wake-up costs less than this poll would
        assertEquals(0, w.pollUntil());
    }

    @Test
    void shouldBlockOnceTheWindowAfterTheLastArrivalHasPassed() {
        arrive(40, 20_000);
        now.addAndGet(ArrivalWindow.K * 20_000 + 10_000); // the stream went quiet
        assertEquals(0, w.pollUntil(), "a quiet waiter polls at most one window after its last message");
    }

    @Test
    void shouldStopPollingAfterTheStreamSlowsDownAndResumeWhenItSpeedsUp() {
        arrive(40, 20_000);
        arrive(8, 2_000_000); // a few long pauses (each counted as at most four caps)
        assertEquals(0, w.pollUntil(), "slow again: block");
        arrive(20, 20_000);
        assertTrue(w.pollUntil() != 0, "fast again: poll");
    }

    @Test
    void shouldNeverPollOnABusyMachine() {
        arrive(40, 20_000);
        busy.set(true);
        assertEquals(0, w.pollUntil(), "threads wait for a core: block");
        busy.set(false);
        assertTrue(w.pollUntil() != 0);
    }

    @Test
    void shouldNeverPollWithACapOfZero() {
        ArrivalWindow off = new ArrivalWindow(0, now::get, () -> false);
        for (int i = 0; i < 40; i++) {
            now.addAndGet(1_000);
            off.arrived();
        }
        assertEquals(0, off.pollUntil());
    }

    @Test
    void shouldCountACrowdedMachineAsBusy() {
        java.util.function.Supplier<PollBudget.LoadSample> saved = PollBudget.runnableSource;
        try {
            PollBudget.runnableSource = () -> new PollBudget.LoadSample(0, 64); // many threads wait for a core
            for (int i = 0; i < 40; i++) {
                PollBudget.sampleRunnable();
            }
            assertTrue(ArrivalWindow.machineBusy(), "crowded: the default load rule forbids polling");
        } finally {
            PollBudget.runnableSource = saved;
            for (int i = 0; i < 40; i++) {
                PollBudget.sampleRunnable(); // back towards the real count
            }
        }
    }
}
