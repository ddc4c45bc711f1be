package io.softcmi.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * With {@code -Dsoftcmi.sched.sliceMicros=100} the daemon's threads that answer run with a short
 * scheduling slice, and so does the client library's node reader (docs/architecture.md §7.5b),
 * read from the kernel's own account of each thread ({@code /proc/PID/task/TID/sched},
 * {@code se.slice}) and from {@code cmiadm dataplane}. By default every thread keeps the kernel's.
 */
@Timeout(120)
class SchedulingSliceSystemTest {
    private static final long SHORT = 100_000;
    /** A thread's slice where the kernel reports none ({@code se.slice} is missing before Linux 6.6). */
    private static final long NOT_REPORTED = -1;
    private static final List<String> SLICED = List.of("-Dsoftcmi.sched.sliceMicros=100");

    @RegisterExtension
    final SystemTestResources resources = SystemTestResources.perTest();

    @Test
    void shouldRunTheDataLoopsAndTheControlPollerWithTheShortSliceWhenAsked() throws Exception {
        NodeProcess node = resources.own(NodeProcess.start(SLICED, resources.logDir(), "sliced"));
        Map<String, Long> slices = awaitThreads(node.pid(), "cmid-data-io-", "cmid-control-poller");
        assumeTrue(reported(slices), "this kernel does not report scheduling slices");
        List<String> loops = slices.keySet().stream().filter(n -> n.startsWith("cmid-data-io-")).toList();
        assertFalse(loops.isEmpty(), "data I/O loops: " + slices);
        slices.forEach((thread, slice) -> assertEquals(SHORT, slice, thread + " slice, all: " + slices));
        assertEquals(loops.size(), CmiAdmFigures.dataplane(node, "io_loops_short_slice"));
        long other = sliceOf(node.pid(), "cmid-peer-monitor");
        assertTrue(other != SHORT, "a thread that does not answer keeps the default slice: " + other);
    }

    @Test
    void shouldRunTheClientLibrarysNodeReaderWithTheShortSliceWhenAsked() throws Exception {
        NodeProcess node = resources.node("plain");
        ClientProcess client = resources.own(ClientProcess.start(SLICED, resources.logDir(), "sliced", node.directory()));
        assertTrue(client.request("info").startsWith("INFO "), "the client is connected");
        Map<String, Long> slices = awaitThreads(client.pid(), "softcmi-node-reader");
        assumeTrue(reported(slices), "this kernel does not report scheduling slices");
        slices.forEach((thread, slice) -> assertEquals(SHORT, slice, thread + " slice"));
        Map<String, Long> application = threadSlices(client.pid(), "java"); // the main thread's comm
        assertFalse(application.isEmpty(), "the client's main thread");
        application.forEach((thread, slice) -> assertTrue(slice != SHORT, thread + ", the application's own thread, keeps its slice"));
    }

    @Test
    void shouldLeaveEverySliceAloneByDefault() throws Exception {
        NodeProcess node = resources.node("unsliced");
        ClientProcess client = resources.client(node);
        assertTrue(client.request("info").startsWith("INFO "), "the client is connected");
        Map<String, Long> slices = awaitThreads(node.pid(), "cmid-data-io-", "cmid-control-poller");
        assumeTrue(reported(slices), "this kernel does not report scheduling slices");
        slices.putAll(awaitThreads(client.pid(), "softcmi-node-reader"));
        slices.forEach((thread, slice) -> assertTrue(slice != SHORT, thread + " kept the default: " + slices));
        assertEquals(0, CmiAdmFigures.dataplane(node, "io_loops_short_slice"));
    }

    /**
     * Waits (at most 10 s) until the daemon's threads named by the prefixes have started and taken
     * their slice (a loop asks for it first thing when it runs), and reads each one's slice.
     *
     * @return thread name to {@code se.slice} in nanoseconds ({@link #NOT_REPORTED} where the kernel reports none)
     */
    private static Map<String, Long> awaitThreads(long pid, String... prefixes) throws Exception {
        Deadline d = Deadline.in(java.time.Duration.ofSeconds(10));
        Map<String, Long> slices;
        do {
            slices = threadSlices(pid, prefixes);
            Map<String, Long> found = slices;
            if (Stream.of(prefixes).allMatch(p -> found.keySet().stream().anyMatch(n -> n.startsWith(comm(p))))) {
                Thread.sleep(200); // each thread sets its slice as it starts: read again once settled
                return threadSlices(pid, prefixes);
            }
            Thread.sleep(20);
        } while (!d.expired());
        throw new AssertionError("threads " + List.of(prefixes) + " of cmid " + pid + ": " + slices);
    }

    private static boolean reported(Map<String, Long> slices) {
        return slices.values().stream().allMatch(s -> s != NOT_REPORTED);
    }

    /** @return a thread name as the kernel keeps it ({@code comm}: its first 15 bytes) */
    private static String comm(String name) {
        return name.length() > 15 ? name.substring(0, 15) : name;
    }

    private static long sliceOf(long pid, String name) throws IOException {
        return threadSlices(pid, name).values().stream().findFirst().orElse(-1L);
    }

    /** @return name to slice of the process's threads whose name starts with one of the prefixes ({@link #NOT_REPORTED} if none) */
    private static Map<String, Long> threadSlices(long pid, String... prefixes) throws IOException {
        Map<String, Long> out = new TreeMap<>();
        List<Path> tasks;
        try (Stream<Path> s = Files.list(Path.of("/proc/" + pid + "/task"))) {
            tasks = new ArrayList<>(s.toList());
        }
        for (Path t : tasks) {
            String comm;
            List<String> sched;
            try {
                comm = Files.readString(t.resolve("comm")).strip();
                sched = Files.readAllLines(t.resolve("sched"));
            } catch (IOException gone) {
                continue; // the thread ended meanwhile
            }
            if (Stream.of(prefixes).noneMatch(p -> comm.startsWith(comm(p)))) {
                continue;
            }
            out.put(comm + "#" + t.getFileName(), sched.stream().filter(l -> l.startsWith("se.slice")).findFirst()
                .map(l -> Long.parseLong(l.substring(l.indexOf(':') + 1).strip())).orElse(NOT_REPORTED));
        }
        return out;
    }
}
