package io.softcmi.node;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class LoopCpusTest {
    @Test
    void shouldSplitTheUsableCoresIntoContiguousSetsOnePerLoop() {
        LoopCpus cpus = new LoopCpus(new int[] {7, 0, 1, 2, 3, 4, 5, 6}, 3);
        assertEquals(3, cpus.loops());
        assertArrayEquals(new int[] {0, 1}, cpus.coresOf(0));
        assertArrayEquals(new int[] {2, 3, 4}, cpus.coresOf(1));
        assertArrayEquals(new int[] {5, 6, 7}, cpus.coresOf(2));
        assertEquals(0, cpus.loopOf(1));
        assertEquals(1, cpus.loopOf(4));
        assertEquals(2, cpus.loopOf(7));
    }

    @Test
    void shouldNameNoLoopForACoreTheProcessMayNotUseOrAnUnknownOne() {
        LoopCpus cpus = new LoopCpus(new int[] {2, 5}, 2);
        assertEquals(0, cpus.loopOf(2));
        assertEquals(1, cpus.loopOf(5));
        assertEquals(-1, cpus.loopOf(3), "a core outside the process's affinity");
        assertEquals(-1, cpus.loopOf(-1), "unknown: no packet came yet");
        assertEquals(-1, cpus.loopOf(6));
        assertFalse(cpus.rotates());
    }

    @Test
    void shouldTellTheCoreTheCallingThreadRunsOn() throws Exception {
        int[] usable = LoopCpus.usableCores();
        LoopCpus cpus = new LoopCpus(usable, usable.length);
        AtomicReference<Integer> seen = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> {
            cpus.pinCurrentThread(0);
            seen.set(LoopCpus.currentCore());
        });
        t.join(10_000);
        assertEquals(cpus.coresOf(0)[0], seen.get(), "a thread pinned to one core runs there");
    }

    @Test
    void shouldRefuseMoreLoopsThanCores() {
        assertThrows(IllegalArgumentException.class, () -> new LoopCpus(new int[] {0, 1}, 3));
        assertThrows(IllegalArgumentException.class, () -> new LoopCpus(new int[] {0}, 0));
    }

    @Test
    void shouldPinAThreadToItsLoopsCoresAndReadThemBack() throws Exception {
        int[] usable = LoopCpus.usableCores();
        assertTrue(usable.length >= 1, "sched_getaffinity names this process's cores");
        assertTrue(usable.length >= Runtime.getRuntime().availableProcessors(),
            "at least the cores the JVM counts (a container's CPU quota may count fewer)");
        LoopCpus cpus = new LoopCpus(usable, usable.length);
        int last = usable.length - 1;
        AtomicReference<int[]> seen = new AtomicReference<>();
        AtomicReference<Boolean> pinned = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> {
            pinned.set(cpus.pinCurrentThread(last));
            seen.set(LoopCpus.usableCores()); // the calling thread's mask
        });
        t.join(10_000);
        assertTrue(pinned.get(), "sched_setaffinity succeeded");
        assertArrayEquals(cpus.coresOf(last), seen.get(), "the thread may run on its loop's cores only");
        assertArrayEquals(usable, LoopCpus.usableCores(), "other threads keep every core");
    }
}
