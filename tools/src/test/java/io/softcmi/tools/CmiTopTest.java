package io.softcmi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code cmiadm top}: options, the Prometheus text it reads, and the rates it prints. */
class CmiTopTest {
    private static final String BEFORE = """
        # HELP softcmi_data_requests_total Remote data requests served, by operation
        # TYPE softcmi_data_requests_total counter
        softcmi_data_requests_total{op="get"} 100
        softcmi_data_requests_total{op="put"} 50
        softcmi_data_requests_total{op="cas"} 0
        softcmi_data_requests_total{op="notify"} 0
        softcmi_data_bytes_total{dir="read"} 1000
        softcmi_data_bytes_total{dir="written"} 0
        softcmi_data_requests_refused_total 1
        softcmi_data_connections 2
        """;
    private static final String AFTER = """
        softcmi_data_requests_total{op="get"} 300
        softcmi_data_requests_total{op="put"} 150
        softcmi_data_requests_total{op="cas"} 20
        softcmi_data_requests_total{op="notify"} 0
        softcmi_data_bytes_total{dir="read"} 5000
        softcmi_data_bytes_total{dir="written"} 800
        softcmi_data_requests_refused_total 4
        softcmi_data_connections 3
        softcmi_data_service_seconds{quantile="0.5"} 1.2E-5
        softcmi_data_service_seconds{quantile="0.99"} 4.0E-5
        """;

    @Test
    void ratesOverTheIntervalAndQuantilesInMicroseconds() {
        Map<String, Double> before = CmiTop.samples(BEFORE);
        assertEquals(100.0, before.get("softcmi_data_requests_total{op=\"get\"}"));
        String line = CmiTop.line("12:00:00", before, CmiTop.samples(AFTER), 2.0);
        String[] f = line.trim().split("\\s+");
        assertEquals("12:00:00", f[0]);
        assertEquals("160", f[1]); // (200 + 100 + 20) / 2 s
        assertEquals("100", f[2]);
        assertEquals("50", f[3]);
        assertEquals("10", f[4]);
        assertEquals("2000", f[5]);
        assertEquals("400", f[6]);
        assertEquals("3", f[7]);
        assertEquals("3", f[8]);
        assertEquals("12.0", f[9]);
        assertEquals("40.0", f[10]);
        assertEquals(f.length, CmiTop.header().trim().split("\\s+").length);
    }

    @Test
    void options() {
        CmiTop.Options o = CmiTop.parse(new String[] {"--metrics", "127.0.0.1:9464", "--interval", "0.5", "--count", "3"});
        assertEquals(URI.create("http://127.0.0.1:9464/metrics"), o.url());
        assertEquals(Duration.ofMillis(500), o.interval());
        assertEquals(3, o.count());
        assertThrows(IllegalArgumentException.class, () -> CmiTop.parse(new String[0]));
        assertThrows(IllegalArgumentException.class, () -> CmiTop.parse(new String[] {"--metrics"}));
        assertThrows(IllegalArgumentException.class,
            () -> CmiTop.parse(new String[] {"--metrics", "h:1", "--interval", "0"}));
    }

    @Test
    void usageErrorsAndAnUnreachableEndpoint() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        PrintStream o = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        assertEquals(CmiAdm.EXIT_USAGE, CmiAdm.run(new String[] {"top"}, o, e, Map.of()));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--metrics"));
        // Port 1 on loopback: nothing listens (connection refused).
        assertEquals(CmiAdm.EXIT_FAILED, CmiAdm.run(new String[] {"top", "--metrics", "127.0.0.1:1", "--count", "1"},
            o, e, Map.of()));
    }

    private static final String PEERS_BEFORE = """
        softcmi_peer_data_requests_total{peer="aaaaaaaa",address="10.0.0.1:7001"} 100
        softcmi_peer_data_requests_refused_total{peer="aaaaaaaa",address="10.0.0.1:7001"} 0
        softcmi_peer_data_bytes_total{peer="aaaaaaaa",address="10.0.0.1:7001",dir="read"} 800
        softcmi_peer_data_bytes_total{peer="aaaaaaaa",address="10.0.0.1:7001",dir="written"} 0
        softcmi_peer_data_service_seconds_bucket{peer="aaaaaaaa",address="10.0.0.1:7001",le="0.00001"} 100
        softcmi_peer_data_service_seconds_bucket{peer="aaaaaaaa",address="10.0.0.1:7001",le="0.00002"} 100
        softcmi_peer_data_service_seconds_bucket{peer="aaaaaaaa",address="10.0.0.1:7001",le="+Inf"} 100
        softcmi_segment_data_requests_total{segment="3"} 100
        softcmi_segment_data_service_seconds_bucket{segment="3",le="0.00001"} 100
        softcmi_segment_data_service_seconds_bucket{segment="3",le="+Inf"} 100
        """;
    private static final String PEERS_AFTER = """
        softcmi_peer_data_requests_total{peer="aaaaaaaa",address="10.0.0.1:7001"} 300
        softcmi_peer_data_requests_refused_total{peer="aaaaaaaa",address="10.0.0.1:7001"} 2
        softcmi_peer_data_bytes_total{peer="aaaaaaaa",address="10.0.0.1:7001",dir="read"} 2400
        softcmi_peer_data_bytes_total{peer="aaaaaaaa",address="10.0.0.1:7001",dir="written"} 400
        softcmi_peer_data_service_seconds_bucket{peer="aaaaaaaa",address="10.0.0.1:7001",le="0.00001"} 200
        softcmi_peer_data_service_seconds_bucket{peer="aaaaaaaa",address="10.0.0.1:7001",le="0.00002"} 298
        softcmi_peer_data_service_seconds_bucket{peer="aaaaaaaa",address="10.0.0.1:7001",le="+Inf"} 300
        softcmi_peer_data_requests_total{peer="bbbbbbbb",address="[fd00::2]:7001"} 10
        softcmi_peer_data_service_seconds_bucket{peer="bbbbbbbb",address="[fd00::2]:7001",le="+Inf"} 10
        softcmi_segment_data_requests_total{segment="3"} 100
        softcmi_segment_data_service_seconds_bucket{segment="3",le="0.00001"} 100
        softcmi_segment_data_service_seconds_bucket{segment="3",le="+Inf"} 100
        """;

    @Test
    void perPeerRatesAndIntervalQuantilesFromBucketDeltas() {
        java.util.List<CmiTop.Row> rows = CmiTop.rows("peer", CmiTop.samples(PEERS_BEFORE), CmiTop.samples(PEERS_AFTER), 2.0);
        assertEquals(2, rows.size());
        CmiTop.Row a = rows.get(0);
        assertEquals("aaaaaaaa@10.0.0.1:7001", a.key(), "the busiest first");
        assertEquals(100.0, a.requests()); // 200 requests in 2 s
        assertEquals(800.0, a.read());
        assertEquals(200.0, a.written());
        assertEquals(2.0, a.refused());
        // The interval's 200 requests: 100 up to 10 us, 98 in (10, 20] us, 2 above 20 us.
        assertEquals(10.0, a.p50(), 1e-9, "the 100th request is the last of the first bucket");
        assertEquals(20.0, a.p99(), 1e-9, "the 198th request is the last of the second bucket");
        CmiTop.Row b = rows.get(1);
        assertEquals("bbbbbbbb@[fd00::2]:7001", b.key(), "a new peer: everything is new");
        assertEquals(5.0, b.requests());
        assertEquals(0.0, b.p50(), "above the last finite bound (none here): the last bound is all we know");
        String table = CmiTop.table("peer", "12:00:00", rows, 20, 2.0);
        String[] lines = table.split("\n");
        assertEquals(4, lines.length, table);
        assertTrue(lines[0].startsWith("12:00:00  by peer, last 2.0 s: 2 client nodes"), table);
        assertEquals(java.util.List.of("PEER", "REQ/S", "READ-B/S", "WRITTEN-B/S", "REFUSED", "P50-US", "P99-US"),
            java.util.List.of(lines[1].trim().split("\\s+")));
        assertEquals(java.util.List.of("aaaaaaaa@10.0.0.1:7001", "100", "800", "200", "2", "10.0", "20.0"),
            java.util.List.of(lines[2].trim().split("\\s+")));
        assertEquals(1, CmiTop.table("peer", "t", rows, 1, 2.0).split("\n").length - 2, "--rows limits the rows");
    }

    @Test
    void perSegmentRowsWithoutRequestsShowNoQuantiles() {
        java.util.List<CmiTop.Row> rows = CmiTop.rows("segment", CmiTop.samples(PEERS_BEFORE), CmiTop.samples(PEERS_AFTER), 1.0);
        assertEquals(1, rows.size());
        assertEquals("3", rows.get(0).key());
        assertEquals(0.0, rows.get(0).requests());
        assertTrue(Double.isNaN(rows.get(0).p50()));
        String line = CmiTop.table("segment", "t", rows, 20, 1.0).split("\n")[2];
        assertEquals(java.util.List.of("3", "0", "0", "0", "0", "-", "-"), java.util.List.of(line.trim().split("\\s+")));
    }

    @Test
    void byAndRowsOptions() {
        CmiTop.Options o = CmiTop.parse(new String[] {"--metrics", "h:1", "--by", "segment", "--rows", "5"});
        assertEquals("segment", o.by());
        assertEquals(5, o.rows());
        assertEquals("node", CmiTop.parse(new String[] {"--metrics", "h:1"}).by());
        assertThrows(IllegalArgumentException.class, () -> CmiTop.parse(new String[] {"--metrics", "h:1", "--by", "x"}));
        assertThrows(IllegalArgumentException.class, () -> CmiTop.parse(new String[] {"--metrics", "h:1", "--rows", "0"}));
    }
}
