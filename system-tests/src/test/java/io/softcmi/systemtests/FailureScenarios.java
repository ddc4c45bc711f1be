package io.softcmi.systemtests;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.CmiEvent;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.ConnectivityMap;
import io.softcmi.cmi.EventReturn;
import io.softcmi.cmi.ExportAttr;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.Quiesce;
import io.softcmi.cmi.RemoteSegmentHandle;
import io.softcmi.cmi.Resume;
import io.softcmi.cmi.SegState;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * What the failure system tests share ({@link FailureEventsSystemTest}, {@link DeadNodeWritesSystemTest}):
 * the daemons' detector options, a segment exported and imported, the events a context receives,
 * signals to processes, and the figures they print.
 */
final class FailureScenarios {
    static final String[] DETECTOR = {"--suspect-after", "500", "--dead-after", "2500"};
    static final Duration EVENT_WAIT = Duration.ofSeconds(20);


    record Shared(CmiSegment segment, byte[] handle, byte[] token) {
    }

    static Shared export(ContextThread owner, long size, boolean writeThrough) {
        return owner.call(c -> {
            CmiSegment s = c.segGet(size, Set.of());
            byte[] h = c.segExp(s, writeThrough ? Set.of(ExportAttr.WRITE_THROUGH) : Set.of()).toBytes();
            byte[] t = c.tokNew(s, NodeAddress.ANY, EnumSet.allOf(Access.class)).toBytes();
            return new Shared(s, h, t);
        });
    }

    record Imported(CmiSegment proxy, CmiMapping mapping) {
    }

    static Imported importAndAttach(ContextThread t, byte[] handle, byte[] token) {
        return t.call(c -> {
            CmiSegment p = c.segImp(RemoteSegmentHandle.fromBytes(handle));
            c.segSetToken(p, CmiToken.fromBytes(token));
            c.enable(true);
            c.ctlReconfTimeout(Duration.ofSeconds(1));
            return new Imported(p, c.segAt(p, Set.of()));
        });
    }

    /** Events a context received until one matches {@code last}, each returned with DONE. */
    static List<CmiEvent> eventsUntil(ContextThread t, Predicate<CmiEvent> last, Duration max) {
        List<CmiEvent> seen = new ArrayList<>();
        Deadline deadline = Deadline.in(max);
        while (!deadline.expired()) {
            CmiEvent e = t.call(c -> c.evtGet(Duration.ofMillis(200)));
            if (e == null) {
                continue;
            }
            t.run(c -> c.evtRet(e, EventReturn.DONE));
            seen.add(e);
            if (last.test(e)) {
                return seen;
            }
        }
        throw new AssertionError("the awaited event did not come within " + max + "; got " + seen);
    }

    /** Whatever events are already waiting (after a short grace). */
    static List<CmiEvent> drain(ContextThread t) {
        List<CmiEvent> seen = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            CmiEvent e = t.call(c -> c.evtGet(Duration.ofMillis(300)));
            if (e == null) {
                break;
            }
            t.run(c -> c.evtRet(e, EventReturn.DONE));
            seen.add(e);
        }
        return seen;
    }

    /** @return a predicate true at the first RESUME after an event of {@code type} */
    static Predicate<CmiEvent> resumeAfter(Class<? extends CmiEvent> type) {
        boolean[] seen = {false};
        return e -> {
            seen[0] |= type.isInstance(e);
            return seen[0] && e instanceof Resume;
        };
    }

    /**
     * The import's state once its home resumed. On a loaded machine the importer's detector may
     * suspect the home once more right after it resumed: a second episode (CMAP, QUIESCE, CMAP,
     * RESUME) that the importer hears as events, after which the state is asked again. A
     * QUIESCED state that no such episode explains stays QUIESCED (and fails the caller's assertion).
     */
    static SegState stateAfterResume(ContextThread t, Imported imp) {
        SegState state = t.call(x -> x.segStatus(imp.proxy()).state());
        if (state != SegState.QUIESCED) {
            return state;
        }
        List<CmiEvent> more = drain(t);
        int quiesce = indexOf(more, Quiesce.class);
        if (quiesce < 0) {
            return state;
        }
        if (more.subList(quiesce, more.size()).stream().noneMatch(e -> e instanceof Resume)) {
            eventsUntil(t, e -> e instanceof Resume, EVENT_WAIT);
        }
        return t.call(x -> x.segStatus(imp.proxy()).state());
    }

    /** What the daemons' failure detectors logged (suspicions, recoveries, their own pauses), for failure messages. */
    static String detectorLines(NodeProcess... nodes) {
        StringBuilder out = new StringBuilder();
        for (NodeProcess n : nodes) {
            ClusterNodes.log(n).lines()
                .filter(l -> l.contains("suspected") || l.contains("answers again") || l.contains("judged afresh"))
                .forEach(l -> out.append('\n').append(n).append(": ").append(l));
        }
        return out.toString();
    }

    /** @return the events from the last CMAP that lists {@code node} on (all of them if none does) */
    static List<CmiEvent> lastEpisode(List<CmiEvent> events, NodeProcess node) {
        for (int i = events.size() - 1; i >= 0; i--) {
            if (events.get(i) instanceof ConnectivityMap m && lists(m, node)) {
                return events.subList(i, events.size());
            }
        }
        return events;
    }

    static int indexOf(List<CmiEvent> events, Class<? extends CmiEvent> type) {
        for (int i = 0; i < events.size(); i++) {
            if (type.isInstance(events.get(i))) {
                return i;
            }
        }
        return -1;
    }

    static boolean lists(ConnectivityMap m, NodeProcess node) {
        byte[] id = ClusterNodes.nodeId(node);
        return m.disconnected().stream().anyMatch(a -> java.util.Arrays.equals(
            ((io.softcmi.cmi.internal.NodeAddressImpl) a).nodeId(), id));
    }

    /** Sends {@code kill -SIG} to a process and checks that {@code kill} succeeded (also used by DirectDeliveryTest). */
    static void signal(String sig, long pid) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("kill", "-" + sig, Long.toString(pid)).inheritIO().start();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0, "kill -" + sig + " " + pid);
    }

    /** The port a daemon really listens on (its ready line shows the advertised one). */
    static int listenPort(NodeProcess node) throws IOException {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("listening on 127\\.0\\.0\\.1:(\\d+)")
            .matcher(java.nio.file.Files.readString(node.log()));
        int port = -1;
        while (m.find()) {
            port = Integer.parseInt(m.group(1)); // the last start's (a log of a failed run is appended to)
        }
        assertTrue(port > 0, "no listen port in the log of " + node);
        return port;
    }

    static long millisSince(long start) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    static void figure(String what, long ms) {
        System.out.println("FAILURE-FIGURE " + what + " " + ms + " ms");
    }

    private FailureScenarios() {
    }
}
