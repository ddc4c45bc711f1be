package io.softcmi.systemtests;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiException;
import io.softcmi.cmi.CmiSegment;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The library's JFR events: a recording around CMI calls on the embedded node holds the control
 * calls and the failure, with their fields.
 */
class JfrEventsTest {
    @TempDir
    Path tmp;

    @Test
    void recordingShowsControlCallsAndFailures() throws Exception {
        Path file = tmp.resolve("cmi.jfr");
        try (Recording r = new Recording()) {
            r.enable("io.softcmi.ControlCall");
            r.enable("io.softcmi.Failure");
            r.start();
            try (CmiContext ctx = Cmi.init(Cmi.LIBRARY_VERSION)) {
                CmiSegment s = ctx.segGet(4096, Set.of());
                ctx.segRemove(s);
                // A segment id that does not exist: the node answers with an error.
                assertThrows(CmiException.class, () -> ctx.segFromId(Long.MAX_VALUE));
            }
            r.stop();
            r.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        assertTrue(events.stream().anyMatch(e -> e.getEventType().getName().equals("io.softcmi.ControlCall")
            && "SEG_GET".equals(e.getString("request"))), "no SEG_GET control call in " + events);
        assertTrue(events.stream().anyMatch(e -> e.getEventType().getName().equals("io.softcmi.Failure")
            && e.getString("error").startsWith("CMI_ERR")), "no failure in " + events);
        assertTrue(events.stream().filter(e -> e.getEventType().getName().equals("io.softcmi.ControlCall"))
            .allMatch(e -> e.getDuration().toNanos() >= 0));
    }

    @RegisterExtension
    final SystemTestResources resources = SystemTestResources.perTest();

    /**
     * A process importing from another daemon: its cache miss, write-back, acquire and CAS each
     * show up as a remote request with the home's segment id, the bytes and the outcome.
     */
    @Test
    void recordingShowsRemoteRequestsMissesAndWriteBacks() throws Exception {
        ClusterNodes cluster = ClusterNodes.create(resources);
        java.util.List<NodeProcess> n = cluster.start("A", "B");
        ContextThread creator = cluster.context(n.get(0));
        ContextThread importer = cluster.context(n.get(1));
        long[] segment = new long[1];
        byte[][] shared = creator.call(c -> {
            CmiSegment s = c.segGet(1 << 16, Set.of());
            c.segAt(s, Set.of());
            segment[0] = s.id();
            return new byte[][] {c.segExp(s, Set.of()).toBytes(),
                c.tokNew(s, io.softcmi.cmi.NodeAddress.ANY, java.util.EnumSet.allOf(io.softcmi.cmi.Access.class)).toBytes()};
        });
        Path file = tmp.resolve("remote.jfr");
        try (Recording r = new Recording()) {
            r.enable("io.softcmi.RemoteRequest");
            r.start();
            importer.run(c -> {
                CmiSegment p = c.segImp(io.softcmi.cmi.RemoteSegmentHandle.fromBytes(shared[0]));
                c.segSetToken(p, io.softcmi.cmi.CmiToken.fromBytes(shared[1]));
                io.softcmi.cmi.CmiMapping m = c.segAt(p, Set.of());
                c.enable(true);
                m.getLong(1024);   // a miss: FILL
                m.putLong(1024, 7);
                c.wmb();           // a write-back: DIFF
                c.rmb();           // an acquire
                c.atmCas(m, 0, 0, 1);
            });
            r.stop();
            r.dump(file);
        }
        List<RecordedEvent> remote = RecordingFile.readAllEvents(file).stream()
            .filter(e -> e.getEventType().getName().equals("io.softcmi.RemoteRequest")).toList();
        for (String op : List.of("FILL", "DIFF", "ACQUIRE", "CAS")) {
            assertTrue(remote.stream().anyMatch(e -> op.equals(e.getString("op")) && e.getLong("segmentId") == segment[0]
                && "OK".equals(e.getString("outcome"))), "no " + op + " request in " + remote);
        }
        assertTrue(remote.stream().filter(e -> "FILL".equals(e.getString("op"))).allMatch(e -> e.getLong("bytes") > 0),
            "a fill carries its line: " + remote);
    }
}
