package io.softcmi.tools;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * {@code cmiadm top}: a live view of one node from its metrics endpoint ({@code cmid --metrics}),
 * one line per interval the way {@code redis-cli --stat} shows a running server: remote requests
 * per second (all, and get/put/cas), bytes per second read and written, open data connections,
 * refused requests, and the home's service time p50/p99 (since the daemon started).
 *
 * <pre>
 * cmiadm top --metrics HOST:PORT [--interval SECONDS] [--count N]
 * </pre>
 * Beyond the spec's {@code cmiadm(8)}.
 */
public final class CmiTop {
    static final String USAGE = "usage: cmiadm top --metrics HOST:PORT [--interval SECONDS] [--count N]";

    private CmiTop() {
    }

    /**
     * A parsed {@code top} command line.
     *
     * @param url the metrics URL
     * @param interval time between samples
     * @param count lines to print before stopping, 0 = until interrupted
     */
    record Options(URI url, Duration interval, long count) {
    }

    static Options parse(String[] args) {
        String metrics = null;
        double interval = 1;
        long count = 0;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("missing value after " + a);
            }
            String v = args[++i];
            switch (a) {
                case "--metrics" -> metrics = v;
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
        return new Options(url, Duration.ofMillis((long) (interval * 1000)), count);
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
