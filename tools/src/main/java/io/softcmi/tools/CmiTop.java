package io.softcmi.tools;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code cmiadm top}: a live view of one node from its metrics endpoint ({@code cmid --metrics}).
 * By default one line per interval the way {@code redis-cli --stat} shows a running server:
 * remote requests per second (all, and get/put/cas), bytes per second read and written, open data
 * connections, refused requests, and the home's service time p50/p99 (since the daemon started).
 * With {@code --by peer} or {@code --by segment}, one table per interval (the screen is cleared
 * first when the output is a terminal, as {@code top} does): per client node or per segment,
 * requests per second, bytes per second read and written, refused requests, and the home's
 * service time p50/p99 over the interval (from the histogram buckets of the two samples).
 *
 * <pre>
 * cmiadm top --metrics HOST:PORT [--by node|peer|segment] [--rows N] [--interval SECONDS] [--count N]
 * </pre>
 * Beyond the spec's {@code cmiadm(8)}.
 */
public final class CmiTop {
    static final String USAGE =
        "usage: cmiadm top --metrics HOST:PORT [--by node|peer|segment] [--rows N] [--interval SECONDS] [--count N]";
    private static final java.util.regex.Pattern LABEL = java.util.regex.Pattern.compile("(\\w+)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    private CmiTop() {
    }

    /**
     * A parsed {@code top} command line.
     *
     * @param url the metrics URL
     * @param interval time between samples
     * @param count lines (or tables) to print before stopping, 0 = until interrupted
     * @param by {@code node} (one line per interval), {@code peer} or {@code segment} (one table per interval)
     * @param rows most rows of a table (the busiest)
     */
    record Options(URI url, Duration interval, long count, String by, int rows) {
    }

    static Options parse(String[] args) {
        String metrics = null;
        double interval = 1;
        long count = 0;
        String by = "node";
        int rows = 20;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("missing value after " + a);
            }
            String v = args[++i];
            switch (a) {
                case "--metrics" -> metrics = v;
                case "--by" -> {
                    if (!List.of("node", "peer", "segment").contains(v)) {
                        throw new IllegalArgumentException("--by takes node, peer or segment, not " + v);
                    }
                    by = v;
                }
                case "--rows" -> {
                    try {
                        rows = Integer.parseInt(v);
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("bad --rows " + v);
                    }
                    if (rows < 1) {
                        throw new IllegalArgumentException("--rows must be at least 1");
                    }
                }
                case "--interval" -> {
                    try {
                        interval = Double.parseDouble(v);
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("bad --interval " + v);
                    }
                    if (!(interval >= 0.1 && interval <= 3600)) {
                        throw new IllegalArgumentException("--interval must be within [0.1, 3600] seconds");
                    }
                }
                case "--count" -> {
                    try {
                        count = Long.parseLong(v);
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("bad --count " + v);
                    }
                    if (count < 0) {
                        throw new IllegalArgumentException("--count must not be negative");
                    }
                }
                default -> throw new IllegalArgumentException("unknown option " + a);
            }
        }
        if (metrics == null) {
            throw new IllegalArgumentException("top needs --metrics HOST:PORT (the daemon's cmid --metrics address)");
        }
        URI url = URI.create(metrics.startsWith("http://") || metrics.startsWith("https://")
            ? metrics : "http://" + metrics + "/metrics");
        return new Options(url, Duration.ofMillis((long) (interval * 1000)), count, by, rows);
    }

    /**
     * Parses Prometheus text format into series name (with labels, as written) and value.
     *
     * @param text the exposition
     * @return the samples
     */
    static Map<String, Double> samples(String text) {
        Map<String, Double> m = new HashMap<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int sp = line.lastIndexOf(' ');
            if (sp <= 0) {
                continue;
            }
            try {
                m.put(line.substring(0, sp).strip(), Double.parseDouble(line.substring(sp + 1).strip()));
            } catch (NumberFormatException e) {
                // not a sample line
            }
        }
        return m;
    }

    private static double get(Map<String, Double> m, String series) {
        return m.getOrDefault(series, 0.0);
    }

    /** The column header. */
    static String header() {
        return String.format(Locale.ROOT, "%-8s %10s %9s %9s %9s %11s %11s %5s %7s %10s %10s",
            "TIME", "REQ/S", "GET/S", "PUT/S", "CAS/S", "READ-B/S", "WRITTEN-B/S", "CONNS", "REFUSED", "P50-US", "P99-US");
    }

    /**
     * One line of the view, from two consecutive samples.
     *
     * @param time the time label
     * @param before the earlier sample
     * @param now the later sample
     * @param seconds seconds between them
     * @return the line
     */
    static String line(String time, Map<String, Double> before, Map<String, Double> now, double seconds) {
        double get = rate(before, now, "softcmi_data_requests_total{op=\"get\"}", seconds);
        double put = rate(before, now, "softcmi_data_requests_total{op=\"put\"}", seconds);
        double cas = rate(before, now, "softcmi_data_requests_total{op=\"cas\"}", seconds);
        double notify = rate(before, now, "softcmi_data_requests_total{op=\"notify\"}", seconds);
        double read = rate(before, now, "softcmi_data_bytes_total{dir=\"read\"}", seconds);
        double written = rate(before, now, "softcmi_data_bytes_total{dir=\"written\"}", seconds);
        double refused = get(now, "softcmi_data_requests_refused_total") - get(before, "softcmi_data_requests_refused_total");
        return String.format(Locale.ROOT, "%-8s %10.0f %9.0f %9.0f %9.0f %11.0f %11.0f %5.0f %7.0f %10.1f %10.1f",
            time, get + put + cas + notify, get, put, cas, read, written, get(now, "softcmi_data_connections"), refused,
            get(now, "softcmi_data_service_seconds{quantile=\"0.5\"}") * 1e6,
            get(now, "softcmi_data_service_seconds{quantile=\"0.99\"}") * 1e6);
    }

    /**
     * A series name and its labels, from a sample key as the exposition writes it.
     *
     * @param name the metric name
     * @param labels its labels in order
     */
    record Series(String name, Map<String, String> labels) {
        static Series of(String key) {
            int brace = key.indexOf('{');
            if (brace < 0) {
                return new Series(key, Map.of());
            }
            Map<String, String> labels = new LinkedHashMap<>();
            java.util.regex.Matcher m = LABEL.matcher(key.substring(brace + 1, Math.max(brace + 1, key.length() - 1)));
            while (m.find()) {
                labels.put(m.group(1), m.group(2).replace("\\\"", "\"").replace("\\\\", "\\"));
            }
            return new Series(key.substring(0, brace), labels);
        }
    }

    /** One row of a per-peer or per-segment table. */
    record Row(String key, double requests, double read, double written, double refused, double p50, double p99) {
    }

    /**
     * The rows of the per-peer or per-segment table for one interval, busiest first.
     *
     * @param by {@code peer} or {@code segment}
     * @param before the earlier sample
     * @param now the later sample
     * @param seconds seconds between them
     * @return one row per peer or segment the later sample has
     */
    static List<Row> rows(String by, Map<String, Double> before, Map<String, Double> now, double seconds) {
        String prefix = "softcmi_" + by + "_data_";
        // key -> series name -> (labels without the key's) -> value, for both samples
        Map<String, Map<String, Double>> nowByKey = byKey(by, prefix, now);
        Map<String, Map<String, Double>> beforeByKey = byKey(by, prefix, before);
        List<Row> rows = new ArrayList<>();
        for (Map.Entry<String, Map<String, Double>> e : nowByKey.entrySet()) {
            Map<String, Double> n = e.getValue();
            Map<String, Double> b = beforeByKey.getOrDefault(e.getKey(), Map.of());
            double requests = delta(b, n, "requests_total");
            TreeMap<Double, Double> buckets = new TreeMap<>();
            for (Map.Entry<String, Double> s : n.entrySet()) {
                if (s.getKey().startsWith("service_seconds_bucket le=")) {
                    String le = s.getKey().substring("service_seconds_bucket le=".length());
                    buckets.put(le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le),
                        delta(b, n, s.getKey()));
                }
            }
            rows.add(new Row(e.getKey(), requests / seconds, delta(b, n, "bytes_total dir=read") / seconds,
                delta(b, n, "bytes_total dir=written") / seconds, delta(b, n, "requests_refused_total"),
                quantile(buckets, 0.5), quantile(buckets, 0.99)));
        }
        rows.sort(java.util.Comparator.comparingDouble(Row::requests).reversed().thenComparing(Row::key));
        return rows;
    }

    private static double delta(Map<String, Double> before, Map<String, Double> now, String series) {
        return Math.max(0, now.getOrDefault(series, 0.0) - before.getOrDefault(series, 0.0));
    }

    /** Groups the {@code prefix} series by peer ({@code ID@ADDRESS}) or segment id. */
    private static Map<String, Map<String, Double>> byKey(String by, String prefix, Map<String, Double> samples) {
        Map<String, Map<String, Double>> out = new TreeMap<>();
        for (Map.Entry<String, Double> s : samples.entrySet()) {
            if (!s.getKey().startsWith(prefix)) {
                continue;
            }
            Series series = Series.of(s.getKey());
            Map<String, String> labels = new LinkedHashMap<>(series.labels());
            String key = by.equals("peer") ? labels.remove("peer") + "@" + labels.remove("address") : labels.remove("segment");
            StringBuilder rest = new StringBuilder(series.name().substring(prefix.length()));
            labels.forEach((k, v) -> rest.append(' ').append(k).append('=').append(v));
            out.computeIfAbsent(key, k -> new HashMap<>()).put(rest.toString(), s.getValue());
        }
        return out;
    }

    /**
     * A quantile from cumulative bucket counts of an interval, interpolated linearly within the
     * bucket that holds it (as Prometheus' {@code histogram_quantile} does).
     *
     * @param cumulative upper bound (seconds; the last infinite) to the count of requests up to it
     * @param q the quantile, in (0, 1]
     * @return microseconds, or NaN when there were no requests
     */
    static double quantile(TreeMap<Double, Double> cumulative, double q) {
        if (cumulative.isEmpty()) {
            return Double.NaN;
        }
        double total = cumulative.lastEntry().getValue();
        if (total <= 0) {
            return Double.NaN;
        }
        double target = q * total;
        double lower = 0;
        double countBelow = 0;
        for (Map.Entry<Double, Double> b : cumulative.entrySet()) {
            if (b.getValue() >= target) {
                if (b.getKey().isInfinite()) {
                    return lower * 1e6; // above the last bound: the last bound is all we know
                }
                double inBucket = b.getValue() - countBelow;
                double fraction = inBucket <= 0 ? 1 : (target - countBelow) / inBucket;
                return (lower + (b.getKey() - lower) * fraction) * 1e6;
            }
            lower = b.getKey();
            countBelow = b.getValue();
        }
        return lower * 1e6;
    }

    /**
     * The per-peer or per-segment table of one interval.
     *
     * @param by {@code peer} or {@code segment}
     * @param time the time label
     * @param rows the rows, busiest first
     * @param max most rows to print
     * @param seconds the interval
     * @return the lines, header first
     */
    static String table(String by, String time, List<Row> rows, int max, double seconds) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%s  by %s, last %.1f s: %d %s%s%n", time, by, seconds, rows.size(),
            by.equals("peer") ? "client node" : "segment", rows.size() == 1 ? "" : "s"));
        String format = by.equals("peer") ? "%-32s" : "%8s";
        b.append(String.format(Locale.ROOT, format + " %10s %11s %11s %7s %10s %10s%n", by.equals("peer") ? "PEER" : "SEGMENT",
            "REQ/S", "READ-B/S", "WRITTEN-B/S", "REFUSED", "P50-US", "P99-US"));
        for (Row r : rows.subList(0, Math.min(max, rows.size()))) {
            b.append(String.format(Locale.ROOT, format + " %10.0f %11.0f %11.0f %7.0f %10s %10s%n", r.key(), r.requests(),
                r.read(), r.written(), r.refused(), micros(r.p50()), micros(r.p99())));
        }
        return b.toString();
    }

    private static String micros(double us) {
        return Double.isNaN(us) ? "-" : String.format(Locale.ROOT, "%.1f", us);
    }

    private static double rate(Map<String, Double> before, Map<String, Double> now, String series, double seconds) {
        return Math.max(0, get(now, series) - get(before, series)) / seconds;
    }

    private static Map<String, Double> scrape(HttpClient http, URI url) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(5)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("HTTP " + r.statusCode() + " from " + url);
        }
        return samples(r.body());
    }

    /** The {@code --by peer|segment} view: one table per interval. */
    private static int tables(HttpClient http, Options o, Map<String, Double> first, long start, PrintStream out)
            throws IOException, InterruptedException {
        boolean terminal = System.console() != null && System.console().isTerminal() && out == System.out;
        Map<String, Double> before = first;
        long t0 = start;
        if (!terminal) {
            out.println("cmiadm top: " + o.url() + " every " + o.interval().toMillis() / 1000.0 + " s by " + o.by()
                + " (P50/P99: the home's service time in the interval, interpolated within histogram buckets)");
        }
        for (long n = 0; o.count() == 0 || n < o.count(); n++) {
            Thread.sleep(o.interval());
            Map<String, Double> now = scrape(http, o.url());
            long t1 = System.nanoTime();
            double seconds = (t1 - t0) / 1e9;
            String table = table(o.by(), java.time.LocalTime.now().withNano(0).toString(),
                rows(o.by(), before, now, seconds), o.rows(), seconds);
            if (terminal) {
                out.print("\033[H\033[2J"); // clear the screen and redraw, as top does
            }
            out.print(table);
            if (!terminal) {
                out.println();
            }
            out.flush();
            before = now;
            t0 = t1;
        }
        return 0;
    }

    /**
     * Runs {@code cmiadm top}.
     *
     * @param args the arguments after {@code top}
     * @param out where the view goes
     * @param err where errors go
     * @return the exit status (0, or {@link CmiAdm#EXIT_FAILED}, {@link CmiAdm#EXIT_USAGE})
     */
    static int run(String[] args, PrintStream out, PrintStream err) {
        Options o;
        try {
            o = parse(args);
        } catch (IllegalArgumentException e) {
            err.println("cmiadm: " + e.getMessage());
            err.println(USAGE);
            return CmiAdm.EXIT_USAGE;
        }
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        try {
            Map<String, Double> before = scrape(http, o.url());
            long t0 = System.nanoTime();
            if (!o.by().equals("node")) {
                return tables(http, o, before, t0, out);
            }
            out.println("cmiadm top: " + o.url() + " every " + o.interval().toMillis() / 1000.0
                + " s (P50/P99: the home's service time since the daemon started)");
            for (long n = 0; o.count() == 0 || n < o.count(); n++) {
                if (n % 20 == 0) {
                    out.println(header());
                }
                Thread.sleep(o.interval());
                Map<String, Double> now = scrape(http, o.url());
                long t1 = System.nanoTime();
                out.println(line(java.time.LocalTime.now().withNano(0).toString(), before, now, (t1 - t0) / 1e9));
                out.flush();
                before = now;
                t0 = t1;
            }
            return 0;
        } catch (IOException e) {
            err.println("cmiadm: cannot read metrics at " + o.url() + ": " + e);
            return CmiAdm.EXIT_FAILED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }
}
