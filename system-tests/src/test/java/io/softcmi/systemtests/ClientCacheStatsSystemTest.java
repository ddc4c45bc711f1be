package io.softcmi.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.cmi.Cmi;
import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.Frame;
import io.softcmi.wire.FrameIO;
import io.softcmi.wire.MessageType;
import java.net.StandardProtocolFamily;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.Arrays;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client cache figures a context reports to its node ({@code CACHE_REPORT}, docs/cache.md
 * "Counters"), seen in {@code bin/cmiadm caches} and in the node's metrics: node B's worker
 * imports a segment of node A (cached, a 32 KiB cache), reads it (misses, fills), writes a word
 * (a write-back, a diff), acquires while A's worker holds a writable attach (invalidations), and
 * reads again once A detached (lines that stay). B's table then shows that context with those
 * figures, B's metrics carry the same totals, and when the worker ends its row goes while the
 * counter totals stay. The memory the cache holds is charged to B's CMI memory while the context
 * lives ({@code softcmi_memory_client_caches_bytes}, {@code max_mem_avail}). A second test speaks
 * the control protocol raw: the node takes a report without answering, and answers a one-way
 * frame of a type it does not know (what a node older than {@code CACHE_REPORT} does with one)
 * with an error notice, keeping the connection.
 */
@Timeout(240)
class ClientCacheStatsSystemTest {
    private static final Pattern URL = Pattern.compile("metrics at (http://127\\.0\\.0\\.1:\\d+/metrics)");
    private static final Duration CMIADM = Duration.ofSeconds(120);
    private static final long CACHE = 32 * 1024;
    private static final long LINE = 1024;

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

    /** The value of the series named exactly {@code name} (no labels), or -1. */
    private static long value(String text, String name) {
        for (String line : text.split("\n")) {
            if (line.startsWith(name + " ")) {
                return Long.parseLong(line.substring(name.length() + 1).strip());
            }
        }
        return -1;
    }

    /** The rows of {@code cmiadm --json caches}, each as column name to number (or "-"/"total"). */
    private static List<Map<String, String>> rows(String json) {
        List<Map<String, String>> out = new java.util.ArrayList<>();
        Matcher row = Pattern.compile("\\{([^{}]*)\\}").matcher(json);
        while (row.find()) {
            Map<String, String> m = new HashMap<>();
            Matcher kv = Pattern.compile("\"([a-z_]+)\":\\s*(\"[^\"]*\"|-?\\d+)").matcher(row.group(1));
            while (kv.find()) {
                m.put(kv.group(1), kv.group(2).replace("\"", ""));
            }
            out.add(m);
        }
        return out;
    }

    private static long num(Map<String, String> row, String key) {
        String v = row.get(key);
        assertTrue(v != null && v.matches("-?\\d+"), key + " in " + row);
        return Long.parseLong(v);
    }

    @Test
    void cmiadmCachesAndTheMetricsShowAContextsCacheFigures() throws Exception {
        ClusterNodes cluster = ClusterNodes.create(resources);
        NodeProcess nodeA = cluster.start("A").get(0);
        NodeProcess nodeB = cluster.startWithOptions("B", "--metrics", "127.0.0.1:0");
        Matcher url = URL.matcher(ClusterNodes.awaitLog(nodeB, "metrics at http://", Duration.ofSeconds(10)));
        assertTrue(url.find(), "the ready line names the metrics URL");
        URI metrics = URI.create(url.group(1));
        Launchers bin = new Launchers(Path.of(System.getProperty("softcmi.source.root")), tmp, Map.of());
        Map<String, String> envB = Map.of("SOFTCMI_NODE", nodeB.directory().toString());

        String before = scrape(metrics);
        assertEquals(0, value(before, "softcmi_client_cache_contexts"), before);
        assertEquals(0, value(before, "softcmi_client_cache_misses_total"), before);
        assertEquals(0, value(before, "softcmi_memory_client_caches_bytes"), before);
        long available = value(before, "softcmi_memory_available_bytes");
        assertTrue(available > CACHE, before);

        List<ClientProcess> workers = cluster.clients(nodeA, nodeB);
        ClientProcess a = workers.get(0);
        ClientProcess b = workers.get(1);
        String addressB = b.expect("node", "NODE");
        long onA = Long.parseLong(a.expect("create " + 16 * 4096, "SEGMENT"));
        a.expect("attach " + onA, "ATTACHED");
        assertEquals("OK", a.request("fill " + onA + " 32768 8192 7"));
        String handle = a.expect("export " + onA, "HANDLE"); // cached: no WRITE_THROUGH
        String token = a.expect("token " + onA + " " + addressB + " READ,WRITE,ATOMIC", "TOKEN");
        long onB = Long.parseLong(b.expect("import " + handle, "PROXY").split(" ")[0]);
        b.expect("set-token " + onB + " " + token, "OK");
        assertEquals("OK " + CACHE, b.request("cache-size " + onB + " " + CACHE));
        b.expect("attach " + onB, "ATTACHED");

        // Misses and fills; a write-back and a diff; an acquire while A's worker may write (invalidations).
        assertEquals("VERIFIED", b.request("check " + onB + " 32768 8192 7"));
        assertEquals("OK", b.request("put-long " + onB + " 8 42"));
        assertEquals("42", a.expect("get-long " + onA + " 8", "VALUE"));
        // get-long starts with rmb: with A's writable attach the home invalidates every line B holds.
        assertEquals(a.expect("get-long " + onA + " 40000", "VALUE"), b.expect("get-long " + onB + " 40000", "VALUE"));
        // A no longer holds a writable attach: B's lines stay from here on.
        assertEquals("DETACHED", a.request("detach " + onA));
        assertEquals("VERIFIED", b.request("check " + onB + " 32768 8192 7"));

        // The worker reports about once a second: wait (bounded) until the node has the last figures.
        Deadline d = Deadline.in(Duration.ofSeconds(30));
        String text = scrape(metrics);
        while (!(value(text, "softcmi_client_cache_misses_total") >= 3 && value(text, "softcmi_client_cache_memory_bytes")
                >= 8 * LINE && value(text, "softcmi_client_cache_write_back_lines_total") >= 1) && !d.expired()) {
            Thread.sleep(100);
            text = scrape(metrics);
        }
        System.out.println("client cache series of B:\n" + text.lines().filter(l -> l.startsWith("softcmi_client_cache"))
            .collect(java.util.stream.Collectors.joining("\n")));
        assertEquals(1, value(text, "softcmi_client_cache_contexts"), text);
        assertEquals(1, value(text, "softcmi_client_cache_imports"), text);
        assertEquals(CACHE, value(text, "softcmi_client_cache_capacity_bytes"), text);
        long misses = value(text, "softcmi_client_cache_misses_total");
        long memory = value(text, "softcmi_client_cache_memory_bytes");
        assertTrue(misses >= 3, "misses: two reads after invalidations and a store's fill:\n" + text);
        assertTrue(memory >= 8 * LINE && memory <= CACHE, "the eight lines read last, within the cache:\n" + text);
        assertTrue(value(text, "softcmi_client_cache_fills_total") >= 3, text);
        assertTrue(value(text, "softcmi_client_cache_fill_bytes_total") >= 2 * 8192, "the range was read twice:\n" + text);
        assertTrue(value(text, "softcmi_client_cache_write_back_lines_total") >= 1, text);
        assertTrue(value(text, "softcmi_client_cache_diffs_total") >= 1, text);
        assertTrue(value(text, "softcmi_client_cache_diff_bytes_total") >= 8, text);
        assertTrue(value(text, "softcmi_client_cache_acquires_total") >= 1, text);
        assertTrue(value(text, "softcmi_client_cache_invalidations_total") >= 1, text);
        assertEquals(0, value(text, "softcmi_client_cache_dirty_lines"), "the last store was released:\n" + text);
        // The cache's memory is charged to B's CMI memory (B's worker holds no segment of B's).
        assertEquals(memory, value(text, "softcmi_memory_client_caches_bytes"), text);
        assertEquals(available - memory, value(text, "softcmi_memory_available_bytes"), text);

        String json = bin.ok(CMIADM, envB, "cmiadm", "--json", "caches");
        String table = bin.ok(CMIADM, envB, "cmiadm", "caches");
        System.out.println("cmiadm caches on B:\n" + table + "cmiadm --json caches on B:\n" + json);
        List<Map<String, String>> rows = rows(json);
        assertEquals(2, rows.size(), "B's worker and the total: " + json);
        Map<String, String> row = rows.get(0);
        assertEquals(Long.toString(b.pid()), row.get("pid"), json);
        assertTrue(num(row, "context") > 0, json);
        assertEquals(1, num(row, "imports"), json);
        assertEquals(CACHE, num(row, "capacity_bytes"), json);
        assertEquals(misses, num(row, "misses"), "no access since the scrape: " + json);
        assertEquals(memory, num(row, "memory_bytes"), "no access since the scrape: " + json);
        assertTrue(num(row, "fills") >= 3 && num(row, "write_back_lines") >= 1 && num(row, "diffs") >= 1
            && num(row, "invalidations") >= 1 && num(row, "resident_lines") >= 8, json);
        Map<String, String> total = rows.get(1);
        assertEquals("total", total.get("context"), json);
        assertEquals(misses, num(total, "misses"), json);
        assertTrue(table.startsWith("CONTEXT ") && table.lines().findFirst().orElseThrow().contains(" PID ")
            && table.contains("MEMORY-BYTES")
            && table.lines().anyMatch(l -> l.startsWith("total ")), table);
        assertTrue(table.lines().anyMatch(l -> l.split("\\s+").length > 1 && l.split("\\s+")[1].equals(Long.toString(b.pid()))),
            "a row with the worker's pid: " + table);

        // The context ends: its row goes, its state leaves the totals, its counters stay in them.
        assertEquals(0, b.exit());
        Deadline gone = Deadline.in(Duration.ofSeconds(30));
        text = scrape(metrics);
        while (value(text, "softcmi_client_cache_contexts") != 0 && !gone.expired()) {
            Thread.sleep(100);
            text = scrape(metrics);
        }
        assertEquals(0, value(text, "softcmi_client_cache_contexts"), text);
        assertEquals(0, value(text, "softcmi_client_cache_memory_bytes"), text);
        assertEquals(0, value(text, "softcmi_client_cache_imports"), text);
        assertEquals(0, value(text, "softcmi_memory_client_caches_bytes"), "the charge went with the context:\n" + text);
        assertEquals(available, value(text, "softcmi_memory_available_bytes"), text);
        assertTrue(value(text, "softcmi_client_cache_misses_total") >= misses, "counters never go back:\n" + text);
        List<Map<String, String>> after = rows(bin.ok(CMIADM, envB, "cmiadm", "--json", "caches"));
        assertEquals(1, after.size(), "only the total row: " + after);
        assertEquals("0", after.get(0).get("memory_bytes"), after.toString());
    }

    /** One control connection spoken raw, one request at a time. */
    private static final class RawControl implements AutoCloseable {
        private final SocketChannel ch;

        RawControl(NodeProcess node) throws Exception {
            ch = SocketChannel.open(StandardProtocolFamily.UNIX);
            ch.connect(UnixDomainSocketAddress.of(node.directory().resolve("cmid.sock")));
            assertEquals(1, call(new ControlMessage.Hello(Frame.VERSION, ProcessHandle.current().pid(), "raw-control",
                Cmi.LIBRARY_VERSION.verno()), 1).correlationId());
        }

        Frame call(ControlMessage m, long correlationId) throws Exception {
            FrameIO.write(ch, MessageType.toFrame(m, correlationId));
            return next();
        }

        void send(Frame f) throws Exception {
            FrameIO.write(ch, f);
        }

        Frame next() throws Exception {
            Frame f = FrameIO.read(ch);
            assertTrue(f != null, "the node closed the connection");
            return f;
        }

        ControlMessage.Table table(String name, long correlationId) throws Exception {
            Frame f = call(new ControlMessage.AdminList(name), correlationId);
            assertEquals(correlationId, f.correlationId(), "no other frame before the reply");
            return (ControlMessage.Table) MessageType.decode(f);
        }

        @Override
        public void close() throws java.io.IOException {
            ch.close();
        }
    }

    private static boolean isKnown(int id) {
        return Arrays.stream(MessageType.values()).anyMatch(t -> t.id() == id);
    }

    @Test
    void aNodeTakesReportsSilentlyAndAnswersAnUnknownOneWayTypeWithoutClosing() throws Exception {
        ClusterNodes cluster = ClusterNodes.create(resources);
        NodeProcess node = cluster.start("R").get(0);
        int unknown = MessageType.CACHE_REPORT.id() + 1;
        while (isKnown(unknown)) {
            unknown++;
        }
        ControlMessage.CacheReport report = new ControlMessage.CacheReport(2, 16, 1, 17 * 1024, 1 << 20, 40, 30,
            30 * 1024, 5, 6, 700, 8, 9, 10, 11);
        try (RawControl raw = new RawControl(node)) {
            raw.send(MessageType.toFrame(report, 0));
            ControlMessage.Table t = raw.table("caches", 2);
            assertEquals(2, t.rows().size(), "this session and the total: " + t);
            List<String> row = t.rows().get(0);
            assertEquals(Long.toString(ProcessHandle.current().pid()), row.get(1));
            assertEquals(List.of("2", "16", "1", Long.toString(17 * 1024), Long.toString(1 << 20), "40", "30",
                Long.toString(30 * 1024), "5", "6", "700", "8", "9", "10", "11"), row.subList(2, row.size()));
            assertEquals(row.subList(2, row.size()), t.rows().get(1).subList(2, row.size()), "the total of one context");

            raw.send(new Frame(unknown, 0, 0, new byte[8]));
            Frame error = raw.next();
            assertEquals(0, error.correlationId(), "an error to a one-way frame comes as a notice");
            ControlMessage.ErrorReply e = (ControlMessage.ErrorReply) MessageType.decode(error);
            assertTrue(e.message().endsWith("unknown message type " + unknown), e.message());
            assertTrue(raw.table("contexts", 3).rows().stream().anyMatch(r -> r.get(3).equals("raw-control")),
                "the connection still serves");
        }
        // The session ended: its figures are forgotten (bounded wait for the node to see the close).
        try (RawControl raw = new RawControl(node)) {
            Deadline d = Deadline.in(Duration.ofSeconds(20));
            ControlMessage.Table t = raw.table("caches", 2);
            for (long id = 3; t.rows().size() != 1 && !d.expired(); id++) {
                Thread.sleep(50);
                t = raw.table("caches", id);
            }
            assertEquals(1, t.rows().size(), "only the total: " + t);
            assertEquals("0", t.rows().get(0).get(7), "no misses of live contexts: " + t);
        }
    }
}
