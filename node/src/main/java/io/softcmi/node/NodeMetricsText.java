package io.softcmi.node;

import java.util.Locale;
import java.util.Map;

/**
 * The node's figures in Prometheus text format: the tables (segments, memory, contexts,
 * exports, imports, tokens) read under the engine's lock, and the remote data path's counters
 * and service-time quantiles ({@link DataPathStats}), read without it.
 */
final class NodeMetricsText {
    private NodeMetricsText() {
    }

    static String render(NodeEngine engine) {
        StringBuilder b = new StringBuilder(4096);
        for (Map.Entry<String, Long> e : engine.tableFigures().entrySet()) {
            gauge(b, "softcmi_" + e.getKey(), "Node table: " + e.getKey().replace('_', ' '), e.getValue());
        }
        DataPathStats d = engine.state().dataStats;
        gauge(b, "softcmi_data_connections", "Open remote data connections", d.connectionsOpen.get());
        counter(b, "softcmi_data_connections_total", "Remote data connections accepted", d.connectionsTotal.sum());
        counter(b, "softcmi_data_hellos_refused_total", "Data connections refused at HELLO (ticket, proof or version)",
            d.refusedHellos.sum());
        b.append("# HELP softcmi_data_requests_total Remote data requests served, by operation\n");
        b.append("# TYPE softcmi_data_requests_total counter\n");
        line(b, "softcmi_data_requests_total{op=\"get\"}", d.gets.sum());
        line(b, "softcmi_data_requests_total{op=\"put\"}", d.puts.sum());
        line(b, "softcmi_data_requests_total{op=\"cas\"}", d.cases.sum());
        line(b, "softcmi_data_requests_total{op=\"notify\"}", d.notifies.sum());
        counter(b, "softcmi_data_requests_refused_total", "Remote data requests answered with an access error", d.errors.sum());
        b.append("# HELP softcmi_data_bytes_total Bytes of remote data moved, by direction\n");
        b.append("# TYPE softcmi_data_bytes_total counter\n");
        line(b, "softcmi_data_bytes_total{dir=\"read\"}", d.bytesRead.sum());
        line(b, "softcmi_data_bytes_total{dir=\"written\"}", d.bytesWritten.sum());
        b.append("# HELP softcmi_data_io_seconds_total Time of the data path's I/O loops, by what they did\n");
        b.append("# TYPE softcmi_data_io_seconds_total counter\n");
        line(b, "softcmi_data_io_seconds_total{state=\"work\"}", d.workNanos.sum() / 1e9);
        line(b, "softcmi_data_io_seconds_total{state=\"poll\"}", d.pollNanos.sum() / 1e9);
        line(b, "softcmi_data_io_seconds_total{state=\"block\"}", d.blockNanos.sum() / 1e9);
        gauge(b, "softcmi_data_max_batch", "Most requests served from one connection's input in one pass", d.maxBatch.get());
        org.HdrHistogram.Histogram h = d.serviceHistogram();
        b.append("# HELP softcmi_data_service_seconds Time the home spends on one remote request\n");
        b.append("# TYPE softcmi_data_service_seconds summary\n");
        for (double q : new double[] {0.5, 0.9, 0.99, 0.999}) {
            line(b, "softcmi_data_service_seconds{quantile=\"" + q + "\"}", h.getValueAtPercentile(q * 100) / 1e9);
        }
        line(b, "softcmi_data_service_seconds_sum", h.getMean() * h.getTotalCount() / 1e9);
        line(b, "softcmi_data_service_seconds_count", h.getTotalCount());
        return b.toString();
    }

    private static void gauge(StringBuilder b, String name, String help, double v) {
        b.append("# HELP ").append(name).append(' ').append(help).append('\n');
        b.append("# TYPE ").append(name).append(" gauge\n");
        line(b, name, v);
    }

    private static void counter(StringBuilder b, String name, String help, double v) {
        b.append("# HELP ").append(name).append(' ').append(help).append('\n');
        b.append("# TYPE ").append(name).append(" counter\n");
        line(b, name, v);
    }

    private static void line(StringBuilder b, String name, double v) {
        b.append(name).append(' ');
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            b.append((long) v);
        } else {
            b.append(String.format(Locale.ROOT, "%.9g", v));
        }
        b.append('\n');
    }
}
