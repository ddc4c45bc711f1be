package io.softcmi.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Jacobi sample gives the sequential result exactly: on one, two and three nodes in this JVM,
 * and with its workers in their own processes on real daemons.
 */
class JacobiStencilTest {
    @Test
    @Timeout(240)
    void shouldMatchTheSequentialRunOnOneTwoAndThreeNodes() {
        for (int workers = 1; workers <= 3; workers++) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            JacobiStencil.Result r = JacobiStencil.run(64, 20, workers, new PrintStream(bytes, true, StandardCharsets.UTF_8));
            System.out.print(bytes.toString(StandardCharsets.UTF_8));
            assertEquals(0.0, r.maxDiff(), "difference from the sequential run with " + workers + " workers");
        }
    }

    @Test
    @Timeout(300)
    void shouldMatchTheSequentialRunWithWorkerProcessesOnTwoDaemonsAndOnOneNode() {
        int n = 64;
        int iterations = 20;
        double[][] expected = JacobiStencil.sequential(n, iterations);
        Set<Long> before = children();
        JacobiProcesses.Outcome two = JacobiProcesses.run(n, iterations, JacobiProcesses.Layout.TWO_DAEMONS, expected);
        System.out.println(two);
        assertEquals(0, two.mismatches(), "cells differing from the sequential run, 2 processes on 2 daemons");
        assertEquals(2, two.cacheCounters().size());
        for (String c : two.cacheCounters()) {
            assertTrue(misses(c) >= iterations, "each worker misses on its neighbour's halo every iteration: " + c);
        }
        JacobiProcesses.Outcome one = JacobiProcesses.run(n, iterations, JacobiProcesses.Layout.TWO_PROCESSES_ONE_NODE, expected);
        System.out.println(one);
        assertEquals(0, one.mismatches(), "cells differing from the sequential run, 2 processes on 1 node");
        for (String c : one.cacheCounters()) {
            assertEquals(0, misses(c), "on one node the neighbour's band is attached directly, not cached: " + c);
        }
        assertEquals(before, children(), "every child process has ended");
    }

    @Test
    @Timeout(120)
    void shouldMatchTheSequentialRunOnTwoDaemonsWithTheHaloReadInTheComputingThread() {
        int n = 64;
        int iterations = 20;
        JacobiProcesses.Outcome o = JacobiProcesses.run(n, iterations, JacobiProcesses.Layout.TWO_DAEMONS,
            JacobiStencil.sequential(n, iterations), List.of("-D" + JacobiWorker.PREFETCH_PROPERTY + "=false"));
        System.out.println(o);
        assertEquals(0, o.mismatches(), "cells differing from the sequential run, halo read by the computing thread");
        for (String c : o.cacheCounters()) {
            assertTrue(misses(c) >= iterations, "each worker misses on its neighbour's halo every iteration: " + c);
        }
    }

    @Test
    @Timeout(120)
    void shouldMatchTheSequentialRunAfterUntimedWarmUpIterations() {
        int n = 64;
        int iterations = 20;
        // 7 warm-up iterations: an odd count, so a worker that did not set both grids back
        // would end on the wrong grid or from a later state.
        List<String> warm = List.of("-D" + JacobiWorker.WARMUP_PROPERTY + "=7");
        double[][] expected = JacobiStencil.sequential(n, iterations);
        for (JacobiProcesses.Layout l : List.of(JacobiProcesses.Layout.TWO_DAEMONS, JacobiProcesses.Layout.TWO_PROCESSES_ONE_NODE)) {
            JacobiProcesses.Outcome o = JacobiProcesses.run(n, iterations, l, expected, warm);
            assertEquals(0, o.mismatches(), l + ": cells differing from the sequential run after the warm-up");
            for (String p : o.phases()) {
                assertTrue(p.contains("after 7 untimed warm-up iterations"), l + ": " + p);
            }
        }
    }

    @Test
    @Timeout(120)
    void shouldReportCellsThatDifferFromTheExpectedGrid() {
        int n = 64;
        double[][] oneIterationShort = JacobiStencil.sequential(n, 19);
        JacobiProcesses.Outcome o = JacobiProcesses.run(n, 20, JacobiProcesses.Layout.ONE_PROCESS, oneIterationShort);
        assertTrue(o.mismatches() > 0, "the comparison sees a grid one iteration off: " + o);
        assertTrue(o.maxDiff() > 0, o.toString());
    }

    private static long misses(String counters) {
        Matcher m = Pattern.compile("misses=(\\d+)").matcher(counters);
        assertTrue(m.find(), counters);
        return Long.parseLong(m.group(1));
    }

    private static Set<Long> children() {
        return ProcessHandle.current().children().filter(ProcessHandle::isAlive).map(ProcessHandle::pid)
            .collect(Collectors.toSet());
    }
}
