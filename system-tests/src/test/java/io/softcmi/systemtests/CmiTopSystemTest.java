package io.softcmi.systemtests;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.RemoteSegmentHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cmiadm top} (the source tree's {@code bin/cmiadm}) against a daemon's metrics endpoint
 * while another node reads its segment remotely: the view shows the gets per second move.
 */
@Timeout(180)
class CmiTopSystemTest {
    private static final Pattern URL = Pattern.compile("metrics at http://(127\\.0\\.0\\.1:\\d+)/metrics");

    @RegisterExtension
    static final SystemTestResources RESOURCES = SystemTestResources.perClass();

    @TempDir
    Path tmp;

    @Test
    void topShowsRemoteRequestsPerSecond() throws Exception {
        ClusterNodes cluster = ClusterNodes.create(RESOURCES);
        NodeProcess home = cluster.startWithOptions("T", "--metrics", "127.0.0.1:0");
        NodeProcess other = cluster.start("U").get(0);
        Matcher m = URL.matcher(ClusterNodes.awaitLog(home, "metrics at http://", Duration.ofSeconds(10)));
        assertTrue(m.find(), "the ready line names the metrics URL");

        ContextThread owner = cluster.context(home);
        byte[][] shared = owner.call(c -> {
            CmiSegment s = c.segGet(4096, Set.of());
            return new byte[][] {c.segExp(s, Set.of(io.softcmi.cmi.ExportAttr.WRITE_THROUGH)).toBytes(), // every get reaches the home
                c.tokNew(s, NodeAddress.ANY, EnumSet.allOf(Access.class)).toBytes()};
        });
        Launchers bin = new Launchers(Path.of(System.getProperty("softcmi.source.root")), tmp, Map.of());
        try (Launchers.Background top = bin.start(Map.of(), "cmiadm", "top", "--metrics", m.group(1),
                "--interval", "0.5", "--count", "120")) {
            top.await("GET/S", Duration.ofSeconds(60));
            // Remote gets for a bounded time, until top has printed a line that saw them.
            cluster.context(other).run(c -> {
                CmiSegment p = c.segImp(RemoteSegmentHandle.fromBytes(shared[0]));
                c.segSetToken(p, CmiToken.fromBytes(shared[1]));
                c.enable(true);
                CmiMapping map = c.segAt(p, Set.of());
                Deadline d = Deadline.in(Duration.ofSeconds(60));
                while (!d.expired() && !sawGets(top.output())) {
                    for (int i = 0; i < 200; i++) {
                        map.getLong(8);
                    }
                }
            });
            String view = Files.readString(top.output());
            assertTrue(sawGets(top.output()), "no line with gets per second:\n" + view);
        }
    }

    @Test
    void topShowsRequestsBytesAndLatencyPerPeerAndPerSegment() throws Exception {
        ClusterNodes cluster = ClusterNodes.create(RESOURCES);
        NodeProcess home = cluster.startWithOptions("P", "--metrics", "127.0.0.1:0");
        NodeProcess other = cluster.start("Q").get(0);
        Matcher m = URL.matcher(ClusterNodes.awaitLog(home, "metrics at http://", Duration.ofSeconds(10)));
        assertTrue(m.find(), "the ready line names the metrics URL");
        ContextThread owner = cluster.context(home);
        long[] segment = new long[1];
        byte[][] shared = owner.call(c -> {
            CmiSegment s = c.segGet(4096, Set.of());
            segment[0] = s.id();
            return new byte[][] {c.segExp(s, Set.of(io.softcmi.cmi.ExportAttr.WRITE_THROUGH)).toBytes(),
                c.tokNew(s, NodeAddress.ANY, EnumSet.allOf(Access.class)).toBytes()};
        });
        String peer = java.util.HexFormat.of().formatHex(ClusterNodes.nodeId(other), 0, 4) + "@127.0.0.1:"
            + ClusterNodes.port(other);
        Launchers bin = new Launchers(Path.of(System.getProperty("softcmi.source.root")), tmp, Map.of());
        for (String by : new String[] {"peer", "segment"}) {
            String key = by.equals("peer") ? peer : Long.toString(segment[0]);
            try (Launchers.Background top = bin.start(Map.of(), "cmiadm", "top", "--metrics", m.group(1), "--by", by,
                    "--interval", "0.5", "--count", "120")) {
                top.await("by " + by, Duration.ofSeconds(60));
                cluster.context(other).run(c -> {
                    CmiSegment p = c.segImp(RemoteSegmentHandle.fromBytes(shared[0]));
                    c.segSetToken(p, CmiToken.fromBytes(shared[1]));
                    c.enable(true);
                    CmiMapping map = c.segAt(p, Set.of());
                    Deadline d = Deadline.in(Duration.ofSeconds(60));
                    while (!d.expired() && busyRow(top.output(), key) == null) {
                        for (int i = 0; i < 200; i++) {
                            map.putLong(16, i);
                            map.getLong(8);
                        }
                    }
                });
                String[] row = busyRow(top.output(), key);
                assertTrue(row != null, "no " + by + " row for " + key + " with requests:\n" + Files.readString(top.output()));
                // KEY REQ/S READ-B/S WRITTEN-B/S REFUSED P50-US P99-US
                assertTrue(Double.parseDouble(row[2]) > 0 && Double.parseDouble(row[3]) > 0, "bytes read and written: "
                    + String.join(" ", row));
                double p50 = Double.parseDouble(row[5]);
                double p99 = Double.parseDouble(row[6]);
                assertTrue(p50 > 0 && p99 >= p50, "service time quantiles: " + String.join(" ", row));
                java.util.List<String> lines = Files.readAllLines(top.output());
                System.out.println("cmiadm top --by " + by + " (last lines):\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - 8), lines.size())));
            }
        }
    }

    /** The last row of a per-peer or per-segment table for {@code key} with requests in its interval. */
    private static String[] busyRow(Path output, String key) {
        try {
            String[] found = null;
            for (String line : Files.readAllLines(output)) {
                String[] f = line.trim().split("\\s+");
                if (f.length == 7 && f[0].equals(key) && !f[5].equals("-") && Double.parseDouble(f[1]) > 0) {
                    found = f;
                }
            }
            return found;
        } catch (java.io.IOException | NumberFormatException e) {
            return null;
        }
    }

    /** Whether a line of the view has a non-zero GET/S column. */
    private static boolean sawGets(Path output) {
        try {
            for (String line : Files.readAllLines(output)) {
                String[] f = line.trim().split("\\s+");
                if (f.length == 11 && f[0].matches("\\d\\d:\\d\\d:\\d\\d") && Double.parseDouble(f[2]) > 0) {
                    return true;
                }
            }
            return false;
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
