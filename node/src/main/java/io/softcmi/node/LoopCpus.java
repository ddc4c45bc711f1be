package io.softcmi.node;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The cores each data-path I/O loop runs on: the cores this process may use
 * ({@code sched_getaffinity}, so a {@code taskset} or cgroup cpuset given to {@code cmid} is
 * respected) split into as many contiguous sets as there are loops, each loop pinned to its
 * set ({@code sched_setaffinity} of the loop's own thread). {@link #loopOf} then names the loop
 * that runs on the core a connection's packets arrive on ({@link SocketCpu}): served from there,
 * a reply wakes its reader on the core it sent from, as a thread-per-connection server's does.
 * Measured on 2 cores, docs/benchmarks.md "Fan-in: each connection served on the core its
 * packets arrive on".
 *
 * <p>Made only where it can work ({@link #plan}): Linux with native access, and at least as many
 * usable cores as loops (at least two). The system property {@value #PROPERTY} turns it off
 * ({@code false}); {@code follow} pins nothing and steers each connection to the loop that last
 * ran on its core ({@link #currentCore()}); {@code rotate}, for tests, neither pins nor looks at
 * cores but moves every connection on to the next loop at each check, to exercise the hand-over
 * under load.
 */
final class LoopCpus {
    /** System property {@value}: {@code true} (the default), {@code false}, {@code follow}, or {@code rotate} (tests). */
    static final String PROPERTY = "softcmi.dataPath.steer";
    private static final int MASK_BYTES = 128; // 1024 cores
    private static final FunctionDescriptor AFFINITY = FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
        ValueLayout.JAVA_LONG, ValueLayout.ADDRESS);
    private static final MethodHandle GETAFFINITY = NativeFiles.downcall("sched_getaffinity", AFFINITY);
    private static final MethodHandle SETAFFINITY = NativeFiles.downcall("sched_setaffinity", AFFINITY);
    private static final MethodHandle GETCPU = NativeFiles.downcall("sched_getcpu", FunctionDescriptor.of(ValueLayout.JAVA_INT));

    /** How the loops find the loop on a connection's core. */
    enum Mode {
        /** Each loop pinned to its cores; {@link #loopOf} names the loop. */
        PIN,
        /** Nothing pinned: the loop that last ran on the core ({@link #currentCore()}). */
        FOLLOW,
        /** Tests: every check moves the connection on to the next loop. */
        ROTATE
    }

    /** Per loop, its cores. */
    private final int[][] cores;
    /** Per core number, its loop, or -1 for a core this process may not use. */
    private final int[] loopOfCore;
    private final Mode mode;

    LoopCpus(int[] usable, int loops) {
        this(usable, loops, Mode.PIN);
    }

    private LoopCpus(int[] usable, int loops, Mode mode) {
        this.mode = mode;
        if (loops < 1 || usable.length < loops) {
            throw new IllegalArgumentException(loops + " loops on " + usable.length + " cores");
        }
        int[] sorted = usable.clone();
        Arrays.sort(sorted);
        cores = new int[loops][];
        loopOfCore = new int[sorted[sorted.length - 1] + 1];
        Arrays.fill(loopOfCore, -1);
        int from = 0;
        for (int i = 0; i < loops; i++) {
            int to = (int) ((long) sorted.length * (i + 1) / loops);
            cores[i] = Arrays.copyOfRange(sorted, from, to);
            for (int c : cores[i]) {
                loopOfCore[c] = i;
            }
            from = to;
        }
    }

    /**
     * @param loops the data path's I/O loops
     * @return their cores, or null where steering cannot work or is turned off
     */
    static LoopCpus plan(int loops) {
        String mode = System.getProperty(PROPERTY, "true");
        if (mode.equals("rotate")) {
            return loops >= 2 ? new LoopCpus(java.util.stream.IntStream.range(0, loops).toArray(), loops, Mode.ROTATE) : null;
        }
        boolean follow = mode.equals("follow");
        if (!(mode.equals("true") || follow) || GETAFFINITY == null || SETAFFINITY == null || GETCPU == null
                || !SocketCpu.available()) {
            return null;
        }
        int[] usable = usableCores();
        return usable.length >= Math.max(2, loops) ? new LoopCpus(usable, loops, follow ? Mode.FOLLOW : Mode.PIN) : null;
    }

    /** @return how the loops find the loop on a connection's core */
    Mode mode() {
        return mode;
    }

    /** @return true in the tests' {@code rotate} mode: each check moves the connection to the next loop, nothing is pinned */
    boolean rotates() {
        return mode == Mode.ROTATE;
    }

    /** @return the core the calling thread runs on now ({@code sched_getcpu}), or -1 */
    static int currentCore() {
        try {
            return GETCPU == null ? -1 : (int) GETCPU.invokeExact();
        } catch (Throwable t) {
            return -1;
        }
    }

    /** @return the cores this process may run on, or none if unknown */
    static int[] usableCores() {
        if (GETAFFINITY == null) {
            return new int[0];
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(MASK_BYTES);
            int r = (int) GETAFFINITY.invokeExact(0, (long) MASK_BYTES, mask);
            if (r != 0) {
                return new int[0];
            }
            List<Integer> cpus = new ArrayList<>();
            for (int i = 0; i < MASK_BYTES * 8; i++) {
                if ((mask.get(ValueLayout.JAVA_BYTE, i / 8) & (1 << (i % 8))) != 0) {
                    cpus.add(i);
                }
            }
            return cpus.stream().mapToInt(Integer::intValue).toArray();
        } catch (Throwable t) {
            return new int[0];
        }
    }

    /** @return the number of loops */
    int loops() {
        return cores.length;
    }

    /**
     * @param loop a loop's index
     * @return its cores
     */
    int[] coresOf(int loop) {
        return cores[loop].clone();
    }

    /**
     * @param core a core number ({@link SocketCpu#incomingCpu})
     * @return the loop that runs on it, or -1 (unknown core, or one this process may not use)
     */
    int loopOf(int core) {
        return core >= 0 && core < loopOfCore.length ? loopOfCore[core] : -1;
    }

    /**
     * Pins the calling thread to a loop's cores.
     *
     * @param loop the loop's index
     * @return whether it worked
     */
    boolean pinCurrentThread(int loop) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(MASK_BYTES);
            for (int c : cores[loop]) {
                mask.set(ValueLayout.JAVA_BYTE, c / 8, (byte) (mask.get(ValueLayout.JAVA_BYTE, c / 8) | (1 << (c % 8))));
            }
            return (int) SETAFFINITY.invokeExact(0, (long) MASK_BYTES, mask) == 0;
        } catch (Throwable t) {
            return false;
        }
    }
}
