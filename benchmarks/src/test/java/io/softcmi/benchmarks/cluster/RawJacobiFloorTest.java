package io.softcmi.benchmarks.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.samples.JacobiStencil;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Each raw Jacobi floor gives the sequential grid bit for bit at a small size, sees a grid one
 * iteration off, and leaves no process behind.
 */
class RawJacobiFloorTest {
    private static final int N = 64;
    private static final int ITERATIONS = 20;

    @Test
    @Timeout(180)
    void shouldMatchTheSequentialGridWithEveryFloorAndLeaveNoProcess() throws Exception {
        double[][] expected = JacobiStencil.sequential(N, ITERATIONS);
        Set<Long> before = children();
        for (RawJacobiFloor.Kind k : RawJacobiFloor.Kind.values()) {
            RawJacobiFloor.Outcome o = RawJacobiFloor.run(k, N, ITERATIONS, expected);
            assertEquals(k, o.kind());
            assertEquals(0, o.mismatches(), "cells differing from the sequential run: " + o);
            assertTrue(o.result().startsWith("exact;"), o.result());
            assertEquals(2, o.cpuSeconds().length);
            assertTrue(o.seconds() > 0, o.toString());
        }
        assertEquals(before, children(), "every floor process has ended");
    }

    @Test
    @Timeout(120)
    void shouldReportCellsOfAGridOneIterationOff() throws Exception {
        double[][] oneShort = JacobiStencil.sequential(N, ITERATIONS - 1);
        for (RawJacobiFloor.Kind k : new RawJacobiFloor.Kind[] {RawJacobiFloor.Kind.THREADS, RawJacobiFloor.Kind.TCP_POLLING}) {
            RawJacobiFloor.Outcome o = RawJacobiFloor.run(k, N, ITERATIONS, oneShort);
            assertTrue(o.mismatches() > 0, "the comparison sees a grid one iteration off: " + o);
        }
    }

    @Test
    @Timeout(120)
    void shouldSplitAnOddGridAsTheSample() throws Exception {
        int n = 37;
        double[][] expected = JacobiStencil.sequential(n, 7);
        assertEquals(0, RawJacobiFloor.run(RawJacobiFloor.Kind.TCP_BLOCKING, n, 7, expected).mismatches());
        assertEquals(0, RawJacobiFloor.run(RawJacobiFloor.Kind.THREADS, n, 7, expected).mismatches());
    }

    static Set<Long> children() {
        return ProcessHandle.current().children().filter(ProcessHandle::isAlive).map(ProcessHandle::pid)
            .collect(Collectors.toSet());
    }
}
