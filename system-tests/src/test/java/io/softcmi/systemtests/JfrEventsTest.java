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
}
