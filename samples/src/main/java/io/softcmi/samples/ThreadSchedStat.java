package io.softcmi.samples;

import java.io.FileInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * What the scheduler says of the calling thread: the time it ran, the time it was runnable but
 * waited for a core, and how many time slices it got, from Linux's
 * {@code /proc/thread-self/schedstat}. The Jacobi sample's workers report the difference over
 * their timed iterations on the {@code PHASES} line: on two cores the time a computing thread
 * waits for a core is what the threads of the network path take from it (docs/benchmarks.md,
 * "Jacobi: every layout"). Read with {@link FileInputStream}, not NIO, so that reading it does not
 * disturb the JIT's profile of the socket reads the worker makes.
 *
 * @param runNanos time on a core
 * @param waitNanos time runnable, waiting for a core
 * @param slices time slices (times the thread was put on a core)
 */
record ThreadSchedStat(long runNanos, long waitNanos, long slices) {
    /** Where the figures are not available (not Linux, no schedstats): all zero. */
    static final ThreadSchedStat NONE = new ThreadSchedStat(0, 0, 0);

    /** @return the calling thread's figures now, or {@link #NONE} where they cannot be read */
    static ThreadSchedStat current() {
        try (FileInputStream in = new FileInputStream("/proc/thread-self/schedstat")) {
            return parse(new String(in.readAllBytes(), StandardCharsets.US_ASCII));
        } catch (IOException | RuntimeException e) {
            return NONE;
        }
    }

    /**
     * @param line the file's one line: three numbers separated by spaces
     * @return its figures
     * @throws NumberFormatException if it is not that
     */
    static ThreadSchedStat parse(String line) {
        String[] f = line.strip().split(" ");
        if (f.length != 3) {
            throw new NumberFormatException("schedstat has " + f.length + " fields: " + line.strip());
        }
        return new ThreadSchedStat(Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]));
    }

    /**
     * @param earlier figures of the same thread taken before
     * @return what happened between the two
     */
    ThreadSchedStat since(ThreadSchedStat earlier) {
        return new ThreadSchedStat(runNanos - earlier.runNanos, waitNanos - earlier.waitNanos, slices - earlier.slices);
    }
}
