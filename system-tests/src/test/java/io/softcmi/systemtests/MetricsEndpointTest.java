package io.softcmi.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.RemoteSegmentHandle;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code cmid --metrics}: the Prometheus text endpoint serves the node's tables and the remote
 * data path's counters, and they move with the work a test does through the data path.
 */
@Timeout(90)
class MetricsEndpointTest {
    private static final Pattern URL = Pattern.compile("metrics at (http://127\\.0\\.0\\.1:\\d+/metrics)");

    @RegisterExtension
    static final SystemTestResources RESOURCES = SystemTestResources.perClass();

    @Test
    void shouldServeCountersThatMoveWithRemoteWork() throws Exception {
        ClusterNodes cluster = ClusterNodes.create(RESOURCES);
        NodeProcess home = cluster.startWithOptions("M", "--metrics", "127.0.0.1:0");
        NodeProcess other = cluster.start("N").get(0);
        Matcher m = URL.matcher(ClusterNodes.awaitLog(home, "metrics at http://", Duration.ofSeconds(10)));
        assertTrue(m.find(), "the ready line names the metrics URL");
        URI uri = URI.create(m.group(1));
        String before = scrape(uri);
        assertEquals(0, value(before, "softcmi_data_requests_total{op=\"get\"}"));

        ContextThread owner = cluster.context(home);
        byte[][] shared = owner.call(c -> {
            CmiSegment s = c.segGet(4096, Set.of());
            // Write-through, so that every access is one request at the home (cached imports
            // would turn them into fills and diffs).
            return new byte[][] {c.segExp(s, Set.of(io.softcmi.cmi.ExportAttr.WRITE_THROUGH)).toBytes(),
                c.tokNew(s, NodeAddress.ANY, EnumSet.allOf(Access.class)).toBytes()};
        });
        cluster.context(other).run(c -> {
            CmiSegment p = c.segImp(RemoteSegmentHandle.fromBytes(shared[0]));
            c.segSetToken(p, CmiToken.fromBytes(shared[1]));
            c.enable(true);
            CmiMapping map = c.segAt(p, Set.of());
            for (int i = 0; i < 100; i++) {
                map.getLong(8);
            }
            for (int i = 0; i < 50; i++) {
                map.putLong(16, i);
            }
            for (int i = 0; i < 10; i++) {
                c.atmCas(map, 0, i, i + 1);
            }
        });
        String after = scrape(uri);
        assertEquals(100, value(after, "softcmi_data_requests_total{op=\"get\"}"));
        assertEquals(50, value(after, "softcmi_data_requests_total{op=\"put\"}"));
        assertEquals(10, value(after, "softcmi_data_requests_total{op=\"cas\"}"));
        assertEquals(800, value(after, "softcmi_data_bytes_total{dir=\"read\"}"));
        assertEquals(400, value(after, "softcmi_data_bytes_total{dir=\"written\"}"));
        assertEquals(160, value(after, "softcmi_data_service_seconds_count"));
        assertTrue(value(after, "softcmi_data_connections_total") >= 1, after);
        assertEquals(0, value(after, "softcmi_data_notification_holds_total"), "no notification, no hold");
        assertTrue(value(after, "softcmi_segments") >= 1 && value(after, "softcmi_tokens") >= 1, after);
        assertTrue(value(after, "softcmi_data_service_seconds{quantile=\"0.99\"}") > 0, after);
    }

    private static String scrape(URI uri) throws IOException, InterruptedException {
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode());
            assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/plain; version=0.0.4"));
            return r.body();
        }
    }

    private static double value(String text, String series) {
        for (String line : List.of(text.split("\n"))) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1).trim());
            }
        }
        throw new AssertionError("no series " + series + " in:\n" + text);
    }
}
