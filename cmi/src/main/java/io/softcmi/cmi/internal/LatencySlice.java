package io.softcmi.cmi.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Asks the kernel for a short scheduling slice for the calling thread: the engine's mechanism for
 * the threads that only answer (the daemon's data I/O loops and control poller, the client
 * library's node reader, notification dispatcher and inlet thread). On Linux 6.12 and later the
 * fair scheduler (EEVDF) lets a thread ask for its own slice ({@code sched_setattr} with
 * {@code SCHED_OTHER} and {@code sched_runtime}, 0.1–100 ms); a waking thread whose slice is
 * shorter than the running thread's may preempt it at once ({@code PREEMPT_SHORT}), where a
 * thread with the default slice (1.4 ms here) often waits until the running one's slice ends.
 * With every core computing, that wait was the tail of a remote call: traced on 2 cores during
 * the Jacobi sample, 5–12% of the daemon's I/O loop wake-ups waited more than 100 µs for a core
 * and 1% more than 1.7–3.2 ms (docs/architecture.md §7.5b "Short slices for the threads
 * that answer"). The share of the cores a thread gets does not change: its weight (nice value) stays
 * as it was; only when it runs changes.
 *
 * <p>Opt-in: the system property {@value #PROPERTY} gives the slice in microseconds ({@value
 * #SHORTEST_MICROS}, the shortest the kernel grants, is what was measured; values outside 100 µs
 * to 100 ms are brought within them); the default, {@code 0}, leaves every thread's slice alone. Measured on 2 cores, the slice shortened the daemon's
 * wake-ups while both cores computed, but no end-to-end figure improved and the single client's
 * remote {@code getLong} came out slower in 6 of 7 alternating pairs (docs/benchmarks.md "Short
 * slices for the threads that answer"), so it is not on by default. Where the kernel cannot
 * (not Linux, an older kernel, no native access, a real-time or idle policy) nothing changes and
 * {@link #applyToCurrentThread()} says so; it never throws.
 */
public final class LatencySlice {
    /** System property {@value}: the slice in microseconds, {@code 0} (the default) for none. */
    public static final String PROPERTY = "softcmi.sched.sliceMicros";
    /** The shortest slice the kernel grants, in microseconds: the one measured. */
    public static final long SHORTEST_MICROS = 100;
    private static final int SCHED_OTHER = 0;
    private static final int SCHED_BATCH = 3;
    /** {@code struct sched_attr} (size 56 from Linux 4.13): size, policy, flags, nice, priority, runtime, deadline, period, util min, util max. */
    private static final int ATTR_SIZE = 56;
    private static final long OFFSET_POLICY = 4;
    private static final long OFFSET_NICE = 16;
    private static final long OFFSET_RUNTIME = 24;
    private static final long[] SYSCALLS = syscallNumbers();
    private static final MethodHandle SYSCALL = syscall();
    /** The longest slice the kernel grants, in microseconds. */
    private static final long LONGEST_MICROS = 100_000;
    private static final long SLICE_NANOS = sliceNanos(Long.getLong(PROPERTY, 0));

    private LatencySlice() {
    }

    /**
     * Gives the calling thread the configured short slice, keeping its policy and nice value.
     *
     * @return whether the kernel now reports that slice for the thread
     */
    public static boolean applyToCurrentThread() {
        if (SLICE_NANOS == 0) {
            return false;
        }
        return setCurrent(SLICE_NANOS);
    }

    /**
     * @param micros the configured slice in microseconds
     * @return it in nanoseconds, within what the kernel grants (0.1–100 ms), or 0 for none
     */
    static long sliceNanos(long micros) {
        return micros <= 0 ? 0 : Math.clamp(micros, SHORTEST_MICROS, LONGEST_MICROS) * 1000;
    }

    /** @return the slice this process asks for, in nanoseconds (0: none) */
    public static long configuredNanos() {
        return SLICE_NANOS;
    }

    /**
     * Sets the calling thread's slice to {@code nanos} (0: the kernel's default), keeping its policy
     * and nice value.
     *
     * @return whether the kernel now reports that slice (for 0: whether the call succeeded)
     */
    static boolean setCurrent(long nanos) {
        return rewrite(attr -> attr.set(ValueLayout.JAVA_LONG, OFFSET_RUNTIME, nanos))
            && (nanos == 0 || currentSliceNanos() == nanos);
    }

    /**
     * Reads the calling thread's attributes, changes them and writes them back, for a thread of a
     * fair policy ({@code SCHED_OTHER}, {@code SCHED_BATCH}); its policy and nice value stay
     * unless {@code change} sets them.
     *
     * @return whether {@code sched_setattr} took the result
     */
    private static boolean rewrite(java.util.function.Consumer<MemorySegment> change) {
        if (SYSCALL == null) {
            return false;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ATTR_SIZE, 8);
            if (!read(attr)) {
                return false;
            }
            int policy = attr.get(ValueLayout.JAVA_INT, OFFSET_POLICY);
            if (policy != SCHED_OTHER && policy != SCHED_BATCH) {
                return false;
            }
            int nice = attr.get(ValueLayout.JAVA_INT, OFFSET_NICE);
            long runtime = attr.get(ValueLayout.JAVA_LONG, OFFSET_RUNTIME);
            attr.fill((byte) 0);
            attr.set(ValueLayout.JAVA_INT, 0, ATTR_SIZE);
            attr.set(ValueLayout.JAVA_INT, OFFSET_POLICY, policy);
            attr.set(ValueLayout.JAVA_INT, OFFSET_NICE, nice);
            attr.set(ValueLayout.JAVA_LONG, OFFSET_RUNTIME, runtime);
            change.accept(attr);
            return (long) SYSCALL.invokeExact(SYSCALLS[0], 0L, attr, 0L, 0L) == 0;
        } catch (Throwable e) {
            return false;
        }
    }

    /**
     * @return the calling thread's slice as the kernel reports it ({@code sched_getattr}'s
     *     {@code sched_runtime}), or 0 where it reports none (before Linux 6.12, or not Linux)
     */
    public static long currentSliceNanos() {
        return currentAttr(OFFSET_RUNTIME, ValueLayout.JAVA_LONG);
    }

    /** @return the calling thread's nice value as {@code sched_getattr} reports it, or 0 where it cannot */
    static long currentNice() {
        return currentAttr(OFFSET_NICE, ValueLayout.JAVA_INT);
    }

    /** Sets the calling thread's nice value, its slice as the kernel reports it (tests; raising it needs no privilege). */
    static boolean setCurrentNice(int nice) {
        return rewrite(attr -> attr.set(ValueLayout.JAVA_INT, OFFSET_NICE, nice));
    }

    private static long currentAttr(long offset, ValueLayout layout) {
        if (SYSCALL == null) {
            return 0;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ATTR_SIZE, 8);
            if (!read(attr)) {
                return 0;
            }
            return layout instanceof ValueLayout.OfInt i ? attr.get(i, offset) : attr.get(ValueLayout.JAVA_LONG, offset);
        }
    }

    /** {@code sched_getattr(0, attr, size, 0)} into {@code attr}. */
    private static boolean read(MemorySegment attr) {
        try {
            return (long) SYSCALL.invokeExact(SYSCALLS[1], 0L, attr, (long) ATTR_SIZE, 0L) == 0;
        } catch (Throwable e) {
            return false;
        }
    }

    /** @return {@code sched_setattr} and {@code sched_getattr}'s numbers for this machine, or null */
    private static long[] syscallNumbers() {
        if (!System.getProperty("os.name", "").startsWith("Linux")) {
            return null;
        }
        return switch (System.getProperty("os.arch", "")) {
            case "amd64", "x86_64" -> new long[] {314, 315};
            case "aarch64" -> new long[] {274, 275};
            default -> null;
        };
    }

    /** @return libc's {@code syscall(long number, ...)} with four long arguments, or null */
    @SuppressWarnings("restricted") // one audited call: sched_setattr/sched_getattr of the calling thread
    private static MethodHandle syscall() {
        if (SYSCALLS == null) {
            return null;
        }
        try {
            Linker linker = Linker.nativeLinker();
            FunctionDescriptor fd = FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG);
            return linker.defaultLookup().find("syscall")
                .map(s -> linker.downcallHandle(s, fd, Linker.Option.firstVariadicArg(1)))
                .orElse(null);
        } catch (IllegalCallerException | UnsupportedOperationException e) {
            return null;
        }
    }
}
