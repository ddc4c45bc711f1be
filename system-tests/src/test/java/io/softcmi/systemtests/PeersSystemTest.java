package io.softcmi.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.ExportAttr;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.RemoteSegmentHandle;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cmiadm peers} and the peer-state metrics ({@code softcmi_peers},
 * {@code softcmi_peer_state}, ...): node B imports a segment of node A; the test hangs A with
 * {@code SIGSTOP} and watches B's view of A go from alive to suspected and back to alive when A
 * continues, then, with a longer hang, to dead, in B's metrics and in {@code bin/cmiadm peers}
 * (text and JSON). Also checks A's view of B (its exports to B).
 */
@Timeout(240)
class PeersSystemTest {
    private static final Pattern URL = Pattern.compile("metrics at (http://127\\.0\\.0\\.1:\\d+/metrics)");
    private static final Duration CMIADM = Duration.ofSeconds(120);

    @RegisterExtension
    final SystemTestResources resources = SystemTestResources.perTest();

    @TempDir
    Path tmp;

    private static String scrape(URI uri) throws Exception {
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode());
            return r.body();
        }
    }

    /** The value of the first series whose line starts with {@code prefix}, or NaN. */
    private static double value(String text, String prefix) {
        for (String line : text.split("\n")) {
            if (line.startsWith(prefix)) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return Double.NaN;
    }

    /** Scrapes until {@code series} has {@code expected} (bounded); returns the last scrape. */
    private static String awaitValue(URI uri, String series, double expected, Duration max) throws Exception {
        Deadline d = Deadline.in(max);
        String text = scrape(uri);
        while (value(text, series) != expected && !d.expired()) {
            Thread.sleep(50);
            text = scrape(uri);
        }
        assertEquals(expected, value(text, series), series + " within " + max + ":\n" + text);
        return text;
    }

    private static void signal(String sig, long pid) throws Exception {
        Process p = new ProcessBuilder("kill", "-" + sig, Long.toString(pid)).inheritIO().start();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0, "kill -" + sig + " " + pid);
    }

    private static URI metrics(NodeProcess n) {
        Matcher m = URL.matcher(ClusterNodes.awaitLog(n, "metrics at http://", Duration.ofSeconds(10)));
        assertTrue(m.find(), "the ready line names the metrics URL");
        return URI.create(m.group(1));
    }

    @Test
    void peersTableAndMetricsFollowAPeerThatIsStoppedContinuedAndDeclaredDead() throws Exception {
        ClusterNodes cluster = ClusterNodes.create(resources);
        NodeProcess a = cluster.startWithOptions("A", "--metrics", "127.0.0.1:0", "--suspect-after", "500",
            "--dead-after", "8000");
        NodeProcess b = cluster.startWithOptions("B", "--metrics", "127.0.0.1:0", "--suspect-after", "500",
            "--dead-after", "8000");
        URI metricsA = metrics(a);
        URI metricsB = metrics(b);
        String idA = HexFormat.of().formatHex(ClusterNodes.nodeId(a), 0, 4);
        String idB = HexFormat.of().formatHex(ClusterNodes.nodeId(b), 0, 4);
        String stateOfA = "softcmi_peer_state{peer=\"" + idA + "\"";
        Launchers bin = new Launchers(Path.of(System.getProperty("softcmi.source.root")), tmp, Map.of());
        Map<String, String> onB = Map.of("SOFTCMI_NODE", b.directory().toString());

        String empty = bin.ok(CMIADM, onB, "cmiadm", "peers");
        assertEquals("ADDRESS  STATE  LAST-HEARD-MS  RTT-US  HEARTBEATS  IMPORTS-FROM  EXPORTS-TO  SINCE",
            empty.strip(), "no peers before any import");
        assertEquals(0.0, value(scrape(metricsB), "softcmi_peers{state=\"alive\"}"));

        byte[][] shared = cluster.context(a).call(c -> {
            CmiSegment s = c.segGet(4096, Set.of());
            return new byte[][] {c.segExp(s, Set.of(ExportAttr.WRITE_THROUGH)).toBytes(),
                c.tokNew(s, NodeAddress.ANY, EnumSet.allOf(Access.class)).toBytes()};
        });
        cluster.context(b).run(c -> {
            CmiSegment p = c.segImp(RemoteSegmentHandle.fromBytes(shared[0]));
            c.segSetToken(p, CmiToken.fromBytes(shared[1]));
        });

        // Alive: both sides watch each other.
        awaitValue(metricsB, stateOfA, 0, Duration.ofSeconds(20));
        String text = awaitValue(metricsB, "softcmi_peers{state=\"alive\"}", 1, Duration.ofSeconds(20));
        assertEquals(1.0, value(text, "softcmi_peer_links{peer=\"" + idA + "\"") /* imports_from first */, text);
        awaitValue(metricsA, "softcmi_peer_state{peer=\"" + idB + "\"", 0, Duration.ofSeconds(20));
        Deadline heard = Deadline.in(Duration.ofSeconds(20));
        while (!(value(scrape(metricsB), "softcmi_peer_rtt_seconds{peer=\"" + idA + "\"") > 0) && !heard.expired()) {
            Thread.sleep(50);
        }
        text = scrape(metricsB);
        assertTrue(value(text, "softcmi_peer_rtt_seconds{peer=\"" + idA + "\"") > 0, "a heartbeat round trip:\n" + text);
        assertTrue(value(text, "softcmi_peer_heartbeat_age_seconds{peer=\"" + idA + "\"") >= 0, text);

        String alive = bin.ok(CMIADM, onB, "cmiadm", "--json", "peers");
        assertTrue(alive.contains("\"state\": \"alive\"") && alive.contains("\"imports_from\": 1")
            && alive.contains("\"exports_to\": 0") && alive.contains("\"address\": \"" + idA + "@"), alive);
        assertTrue(Pattern.compile("\"rtt_us\": [1-9]\\d*").matcher(alive).find(), "a round trip in microseconds: " + alive);
        String fromA = bin.ok(CMIADM, Map.of("SOFTCMI_NODE", a.directory().toString()), "cmiadm", "peers");
        System.out.println("cmiadm peers on B:\n" + bin.ok(CMIADM, onB, "cmiadm", "peers") + "cmiadm peers on A:\n" + fromA
            + "cmiadm --json peers on B:\n" + alive);
        List<String> row = List.of(fromA.lines().filter(l -> l.startsWith(idB + "@")).findFirst()
            .orElseThrow(() -> new AssertionError("A lists B:\n" + fromA)).trim().split("\\s+"));
        assertEquals(List.of("alive", "0", "1"), List.of(row.get(1), row.get(5), row.get(6)),
            "A: B alive, no imports from B, one export to B: " + fromA);

        // Suspected while A is stopped, alive again when it continues.
        signal("STOP", a.pid());
        try {
            awaitValue(metricsB, stateOfA, 1, Duration.ofSeconds(20));
            assertEquals(1.0, value(scrape(metricsB), "softcmi_peers{state=\"suspected\"}"));
        } finally {
            signal("CONT", a.pid());
        }
        awaitValue(metricsB, stateOfA, 0, Duration.ofSeconds(20));

        // A longer stop: suspected (seen by cmiadm), then dead.
        signal("STOP", a.pid());
        try {
            awaitValue(metricsB, stateOfA, 1, Duration.ofSeconds(20));
            String suspected = bin.ok(CMIADM, onB, "cmiadm", "peers");
            assertTrue(suspected.lines().anyMatch(l -> l.startsWith(idA + "@") && l.contains(" suspected ")),
                "cmiadm peers shows A suspected (or the machine took 8 s to run cmiadm):\n" + suspected);
            awaitValue(metricsB, stateOfA, 2, Duration.ofSeconds(30));
            String dead = bin.ok(CMIADM, onB, "cmiadm", "--json", "peers");
            System.out.println("cmiadm peers on B, A suspected:\n" + suspected + "A dead:\n" + dead
                + "metrics of B:\n" + scrape(metricsB).lines().filter(l -> l.contains("peer")).collect(
                    java.util.stream.Collectors.joining("\n")));
            assertTrue(dead.contains("\"address\": \"" + idA + "@") && dead.contains("\"state\": \"dead\""), dead);
            assertEquals(1.0, value(scrape(metricsB), "softcmi_peers{state=\"dead\"}"));
        } finally {
            signal("CONT", a.pid());
        }
    }
}
