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
}
