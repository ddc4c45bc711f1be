package io.softcmi.benchmarks.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The raw bidirectional stream moves every chunk both ways and leaves no process behind; the
 * bandwidth samples' output is read as printed.
 */
class VmmcBandwidthTest {
    @Test
    @Timeout(120)
    void shouldDeliverEveryChunkInBothDirectionsAndLeaveNoProcess() throws Exception {
        Set<Long> before = RawJacobiFloorTest.children();
        List<Process> children = new ArrayList<>();
        try {
            for (int bytes : new int[] {4, 4096}) {
                RawBidirStream.Result r = RawBidirStream.run(bytes, 37, 0, children);
                assertEquals(37L * bytes, r.sentHere(), r.toString());
                assertEquals(r.sentHere(), r.receivedThere(), r.toString());
                assertEquals(37L * bytes, r.sentThere(), r.toString());
                assertEquals(r.sentThere(), r.receivedHere(), r.toString());
                assertTrue(r.seconds() > 0 && r.mbPerSecond() > 0, r.toString());
            }
            // Timed: each side keeps sending for at least the time given, the last chunk marked.
            RawBidirStream.Result t = RawBidirStream.run(4096, 3, 0.2, children);
            assertTrue(t.sentHere() > 3L * 4096 && t.sentHere() % 4096 == 0, t.toString());
            assertEquals(t.sentHere(), t.receivedThere(), t.toString());
            assertTrue(t.sentThere() > 3L * 4096 && t.sentThere() % 4096 == 0, t.toString());
            assertEquals(t.sentThere(), t.receivedHere(), t.toString());
            assertTrue(t.seconds() >= 0.2, t.toString());
            for (Process p : children) {
                assertTrue(p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS), "the peer exits after its run");
            }
        } finally {
            ChildProcesses.stop(children);
        }
        assertEquals(before, RawJacobiFloorTest.children(), "every peer process has ended");
    }

    @Test
    void shouldReadEverySizeOfTheSamplesOutputWithAndWithoutMessageCounts() {
        String timed = """
            OnewayBandwidth: 20 iterations, n1 -> n2
                  nwords        bytes         MB/s
                       1            4         1.25
                         (5123 messages in 1.00 s)
                  262144      1048576      3469.50
                         (3310 messages in 1.00 s)
            OnewayBandwidth: curve in /tmp/x/OnewayBandwidth.png
            OnewayBandwidth: done
            """;
        Map<Integer, VmmcBandwidth.Point> p = VmmcBandwidth.parse(timed);
        assertEquals(List.of(4, 1048576), List.copyOf(p.keySet()));
        assertEquals(new VmmcBandwidth.Point(1.25, 5123), p.get(4));
        assertEquals(new VmmcBandwidth.Point(3469.5, 3310), p.get(1048576));
        String counted = """
            BidirBandwidth: 200 iterations, n1 -> n2
                  nwords        bytes         MB/s
                  262144      1048576      2100.00
                  524288      2097152      2200.00
            BidirBandwidth: done
            """;
        Map<Integer, VmmcBandwidth.Point> q = VmmcBandwidth.parse(counted);
        assertEquals(new VmmcBandwidth.Point(2100.0, -1), q.get(1048576));
        assertEquals(new VmmcBandwidth.Point(2200.0, -1), q.get(2097152));
        assertEquals(2, q.size());
    }

    @Test
    void shouldTakeTheMiddleOfOddAndEvenCounts() {
        assertEquals(3.0, VmmcBandwidth.median(new double[] {5, 1, 3}));
        assertEquals(2.5, VmmcBandwidth.median(new double[] {4, 1, 2, 3}));
    }
}
