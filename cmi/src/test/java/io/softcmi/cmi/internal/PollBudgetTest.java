package io.softcmi.cmi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The adaptive polling rule: a waiter polls while its polls pay, stops after misses, and learns
 * from blocked waits that a poll would have caught (so two ends that both block find their way
 * back to polling). No timing: only the decisions.
 */
class PollBudgetTest {
    private static final long BUDGET = 50_000;
    private static final int CORES = Runtime.getRuntime().availableProcessors();
    private Supplier<PollBudget.LoadSample> realSource;

    @BeforeEach
    void freeCores() {
        realSource = PollBudget.runnableSource;
        runnable(1); // whatever the machine's load: the rules below assume free cores
    }

    @AfterEach
    void realCores() {
        PollBudget.runnableSource = realSource;
    }

    /** Makes the sampled count of runnable threads {@code n} (the moving average converges). */
    private static void runnable(int n) {
        PollBudget.runnableSource = () -> new PollBudget.LoadSample(0, n);
        for (int i = 0; i < 64; i++) {
            PollBudget.sampleRunnable();
        }
    }

    @Test
    void shouldNotPollWhileThreadsWaitForACoreWhenBlockingIsCheap() {
        PollBudget b = new PollBudget(BUDGET, true);
        PollBudget control = new PollBudget(BUDGET);
        assertEquals(BUDGET, b.budget());
        runnable(CORES + 2);
        assertTrue(PollBudget.crowded());
        assertEquals(0, countPolls(b, 3 * PollBudget.PROBE_EVERY), "no poll, not even a probe, while threads wait for a core");
        assertFalse(b.paying());
        assertEquals(BUDGET, control.budget(), "a waiter whose blocked wait is dear still polls");
        runnable(CORES);
        assertFalse(PollBudget.crowded(), "as many runnable threads as cores: none waits");
        assertEquals(BUDGET, b.budget());
    }

    @Test
    void shouldNotPollWhileAsManyThreadsWaitForRepliesAsThereAreCores() {
        PollBudget b = new PollBudget(BUDGET, true);
        PollBudget control = new PollBudget(BUDGET);
        for (int i = 0; i < CORES - 1; i++) {
            PollBudget.startWaiting();
        }
        try {
            assertFalse(PollBudget.manyWaiting(), "fewer waiting threads than cores");
            assertEquals(BUDGET, b.budget());
            PollBudget.startWaiting();
            try {
                assertTrue(PollBudget.manyWaiting());
                assertEquals(0, countPolls(b, 3 * PollBudget.PROBE_EVERY), "no poll, not even a probe");
                assertEquals(0, b.budgetWhileTraffic(System.nanoTime(), System.nanoTime()), "traffic or not");
                assertEquals(BUDGET, control.budget(), "a waiter whose blocked wait is dear still polls");
            } finally {
                PollBudget.endWaiting();
            }
            assertEquals(BUDGET, b.budget(), "one waiter fewer: polls again");
        } finally {
            for (int i = 0; i < CORES - 1; i++) {
                PollBudget.endWaiting();
            }
        }
    }

    @Test
    void shouldPollWhilePollsPayAndStopAfterMisses() {
        PollBudget b = new PollBudget(BUDGET);
        assertEquals(BUDGET, b.budget(), "a fresh waiter polls");
        for (int i = 0; i < 20; i++) {
            b.polled(false);
        }
        int polls = 0;
        for (int i = 0; i < PollBudget.PROBE_EVERY * 4; i++) {
            polls += b.budget() > 0 ? 1 : 0;
        }
        assertEquals(4, polls, "after many misses, only one probe every " + PollBudget.PROBE_EVERY + " waits");
    }

    @Test
    void shouldCountABlockedWaitWithinTheBudgetAsAHitAndALongerOneAsNothing() {
        PollBudget b = new PollBudget(BUDGET);
        for (int i = 0; i < 20; i++) {
            b.polled(false);
        }
        for (int i = 0; i < 20; i++) {
            b.blocked(BUDGET * 3); // includes a wake-up: says nothing
        }
        assertEquals(0, countPolls(b, 15), "long blocked waits do not bring polling back");
        for (int i = 0; i < 20; i++) {
            b.blocked(BUDGET / 2); // the data came fast although nobody polled
        }
        assertEquals(15, countPolls(b, 15), "fast blocked waits bring polling back");
    }

    @Test
    void shouldPollForTheWholeBudgetWhileTrafficLastsWhateverTheHitRateUnlessCrowded() {
        PollBudget b = new PollBudget(BUDGET, true);
        for (int i = 0; i < 40; i++) {
            b.polled(false);
        }
        assertFalse(b.paying(), "the misses put the rate below half");
        long now = System.nanoTime();
        int waits = 3 * PollBudget.PROBE_EVERY;
        assertEquals(waits, countTrafficPolls(b, now, now - 1_000, waits), "a request 1 us ago: traffic, every wait polls");
        assertEquals(3, countTrafficPolls(b, now, now - PollBudget.TRAFFIC_NANOS - 1, waits),
            "no request within the traffic time: only the probes poll");
        runnable(CORES + 2);
        assertEquals(0, countTrafficPolls(b, now, now - 1_000, waits), "threads wait for a core: no poll, traffic or not");
        runnable(1);
        assertEquals(0, countTrafficPolls(new PollBudget(0, true), now, now - 1_000, waits), "a budget of 0 never polls");
    }

    private static int countTrafficPolls(PollBudget b, long now, long lastTraffic, int waits) {
        int polls = 0;
        for (int i = 0; i < waits; i++) {
            long limit = b.budgetWhileTraffic(now, lastTraffic);
            assertTrue(limit == 0 || limit == BUDGET, "the whole budget or nothing: " + limit);
            polls += limit > 0 ? 1 : 0;
        }
        return polls;
    }

    private static int countPolls(PollBudget b, int waits) {
        int polls = 0;
        for (int i = 0; i < waits; i++) {
            polls += b.budget() > 0 ? 1 : 0;
        }
        return polls;
    }

    @Test
    void shouldTakeTheIdleCoreFromTheSameSampleAsTheRunnableCount() {
        PollBudget.runnableSource = () -> new PollBudget.LoadSample(CORES, 1);
        PollBudget.sampleRunnable();
        assertFalse(PollBudget.idleCore(), "a load average of one per core leaves no core idle");
        PollBudget.runnableSource = () -> new PollBudget.LoadSample(0, 1);
        PollBudget.sampleRunnable();
        assertTrue(PollBudget.idleCore());
    }

    @Test
    void shouldReadTheLoadAverageAndTheRunningCountOfProcLoadavg() {
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isReadable(java.nio.file.Path.of("/proc/loadavg")));
        PollBudget.LoadSample sample = realSource.get();
        assertTrue(sample != null && sample.oneMinute() >= 0 && sample.running() >= 1, "sample: " + sample);
    }

    @Test
    void shouldBackOffBrieflyAfterAnIsolatedPreemptionAndLongerWhileTheyRecur() {
        PollBudget.endBackOff();
        try {
            long t = System.nanoTime();
            PollBudget.backOff(t);
            assertEquals(PollBudget.MIN_BACKOFF_NANOS, PollBudget.lastBackOffNanos(), "the first preemption in a while");
            assertTrue(PollBudget.contended());
            long expected = PollBudget.MIN_BACKOFF_NANOS;
            for (int i = 0; i < 8; i++) {
                t += PollBudget.lastBackOffNanos() + 1; // just after the back-off ended: within BACKOFF_RECENT of its lengths
                PollBudget.backOff(t);
                expected = Math.min(2 * expected, PollBudget.BACKOFF_NANOS);
                assertEquals(expected, PollBudget.lastBackOffNanos(), "preemption " + (i + 2) + " in a row");
            }
            assertEquals(PollBudget.BACKOFF_NANOS, PollBudget.lastBackOffNanos(), "capped");
            t += PollBudget.BACKOFF_RECENT * PollBudget.BACKOFF_NANOS + 1;
            PollBudget.backOff(t);
            assertEquals(PollBudget.MIN_BACKOFF_NANOS, PollBudget.lastBackOffNanos(), "none for a while: short again");
        } finally {
            PollBudget.endBackOff();
        }
        assertFalse(PollBudget.contended());
    }

    @Test
    void shouldYieldBetweenLooksOnlyOncePollingLastedAWhileAndOncePerInterval() {
        PollBudget.endBackOff();
        try {
            long now = System.nanoTime();
            long early = now - PollBudget.YIELD_AFTER_NANOS + 1_000;
            assertEquals(now, PollBudget.pause(early, now - 500, now), "a young poll only spins: the look's time is returned as is");
            long start = now - PollBudget.YIELD_AFTER_NANOS - PollBudget.YIELD_INTERVAL_NANOS / 2;
            long sameInterval = start + PollBudget.YIELD_AFTER_NANOS + 1;
            assertEquals(now, PollBudget.pause(start, sameInterval, now), "no second yield within one interval");
            long lastInterval = start + PollBudget.YIELD_AFTER_NANOS - 1;
            long after = PollBudget.pause(start, lastInterval, now);
            if (after == PollBudget.STOP) {
                assertTrue(PollBudget.contended(), "a yield that kept the core away starts the back-off");
            } else {
                assertTrue(after >= now, "a yield returns the time after it: " + after + " < " + now);
            }
        } finally {
            PollBudget.endBackOff();
        }
    }
}
