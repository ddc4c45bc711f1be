package io.softcmi.cmi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The short slice of the threads that answer: it reaches the kernel for the calling thread only,
 * leaves the thread's nice value as it was, and is not asked for unless configured. Each case runs on a fresh platform thread, so the
 * test runner's threads keep their own slices.
 */
class LatencySliceTest {
    private static final long SHORT = LatencySlice.SHORTEST_MICROS * 1000;

    @BeforeAll
    static void kernelReportsSlices() throws Exception {
        // Linux 6.12 and later report every fair thread's slice; elsewhere the mechanism is a no-op.
        assumeTrue(onFreshThread(LatencySlice::currentSliceNanos) > 0, "the kernel reports no scheduling slice");
    }

    @Test
    void shouldGiveTheCallingThreadTheShortSlice() throws Exception {
        long[] before = new long[1];
        long after = onFreshThread(() -> {
            before[0] = LatencySlice.currentSliceNanos();
            assertTrue(LatencySlice.setCurrent(SHORT), "the kernel took the slice");
            return LatencySlice.currentSliceNanos();
        });
        assertNotEquals(SHORT, before[0], "a fresh thread starts with the kernel's default slice");
        assertEquals(SHORT, after);
    }

    @Test
    void shouldAskForASliceTheKernelGrants() {
        assertEquals(0, LatencySlice.sliceNanos(0));
        assertEquals(0, LatencySlice.sliceNanos(-5));
        assertEquals(SHORT, LatencySlice.sliceNanos(20), "raised to the shortest");
        assertEquals(250_000, LatencySlice.sliceNanos(250));
        assertEquals(100_000_000, LatencySlice.sliceNanos(1_000_000), "lowered to the longest");
    }

    @Test
    void shouldChangeNothingUnlessAsked() throws Exception {
        assertEquals(0, LatencySlice.configuredNanos(), "off by default");
        long[] result = onFreshThread(() -> {
            long before = LatencySlice.currentSliceNanos();
            boolean applied = LatencySlice.applyToCurrentThread();
            return new long[] {before, LatencySlice.currentSliceNanos(), applied ? 1 : 0};
        });
        assertEquals(result[0], result[1]);
        assertEquals(0, result[2]);
    }

    @Test
    void shouldLeaveOtherThreadsAlone() throws Exception {
        long untouched = onFreshThread(LatencySlice::currentSliceNanos);
        onFreshThread(() -> LatencySlice.setCurrent(SHORT));
        assertEquals(untouched, onFreshThread(LatencySlice::currentSliceNanos));
        assertNotEquals(SHORT, untouched);
    }

    @Test
    void shouldKeepTheThreadsNiceValue() throws Exception {
        long[] result = onFreshThread(() -> {
            assertTrue(LatencySlice.setCurrentNice(4));
            assertTrue(LatencySlice.setCurrent(SHORT));
            return new long[] {LatencySlice.currentNice(), LatencySlice.currentSliceNanos()};
        });
        assertEquals(4, result[0], "nice value");
        assertEquals(SHORT, result[1], "slice");
    }

    @Test
    void shouldGoBackToTheKernelsDefault() throws Exception {
        long[] result = onFreshThread(() -> {
            long original = LatencySlice.currentSliceNanos();
            assertTrue(LatencySlice.setCurrent(SHORT));
            assertTrue(LatencySlice.setCurrent(0));
            return new long[] {original, LatencySlice.currentSliceNanos()};
        });
        assertEquals(result[0], result[1]);
    }

    private static <T> T onFreshThread(Callable<T> call) throws Exception {
        ExecutorService one = Executors.newSingleThreadExecutor(r -> Thread.ofPlatform().daemon().unstarted(r));
        try {
            return one.submit(call).get(10, TimeUnit.SECONDS);
        } finally {
            one.shutdownNow();
        }
    }
}
