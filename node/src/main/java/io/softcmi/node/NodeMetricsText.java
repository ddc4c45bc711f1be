package io.softcmi.node;

import java.util.Locale;
import java.util.Map;

/**
 * The node's figures in Prometheus text format: the tables (segments, memory, contexts,
 * exports, imports, tokens) and the client cache totals ({@link CacheReports}) read under the
 * engine's lock, and the remote data path's counters
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
        peers(b, engine);
        clientCaches(b, engine.cacheTotals());
        DataPathStats d = engine.state().dataStats;
        gauge(b, "softcmi_data_connections", "Open remote data connections", d.connectionsOpen.get());
        counter(b, "softcmi_data_connections_total", "Remote data connections accepted", d.connectionsTotal.sum());
        counter(b, "softcmi_data_connections_moved_total",
            "Data connections handed to the I/O loop on the core their packets arrive on", d.connectionsMoved.sum());
        counter(b, "softcmi_data_hot_reads_total",
            "Passes in which an I/O loop's poll found requests by reading its one active connection's socket directly", d.hotReads.sum());
        gauge(b, "softcmi_data_io_loops_short_slice",
            "Data I/O loops running with the short scheduling slice (softcmi.sched.sliceMicros)", d.loopsWithShortSlice.get());
        counter(b, "softcmi_data_hellos_refused_total", "Data connections refused at HELLO (ticket, proof or version)",
            d.refusedHellos.sum());
        counter(b, "softcmi_data_connections_superseded_total",
            "Open data connections superseded by a newer connection of the same context (after a timeout)",
            d.connectionsSuperseded.sum());
        b.append("# HELP softcmi_data_requests_total Remote data requests served, by operation\n");
        b.append("# TYPE softcmi_data_requests_total counter\n");
        line(b, "softcmi_data_requests_total{op=\"get\"}", d.gets.sum());
        line(b, "softcmi_data_requests_total{op=\"put\"}", d.puts.sum());
        line(b, "softcmi_data_requests_total{op=\"cas\"}", d.cases.sum());
        line(b, "softcmi_data_requests_total{op=\"notify\"}", d.notifies.sum());
        line(b, "softcmi_data_requests_total{op=\"fill\"}", d.fills.sum());
        line(b, "softcmi_data_requests_total{op=\"diff\"}", d.diffs.sum());
        line(b, "softcmi_data_requests_total{op=\"acquire\"}", d.acquires.sum());
        line(b, "softcmi_data_requests_total{op=\"forget\"}", d.forgets.sum());
        counter(b, "softcmi_data_requests_refused_total", "Remote data requests answered with an access error", d.errors.sum());
        counter(b, "softcmi_data_notification_holds_total",
            "Data connections held because a notification's creator was too far behind", d.notificationHolds.sum());
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
        traffic(b, engine, d);
        return b.toString();
    }

    /** Node totals of the client cache figures the contexts report ({@link CacheReports}). */
    private static void clientCaches(StringBuilder b, CacheReports.Totals t) {
        gauge(b, "softcmi_client_cache_contexts", "Contexts of this node that reported cache figures", t.contexts());
        for (int i = 0; i < CacheReports.FIGURES.size(); i++) {
            CacheReports.Figure f = CacheReports.FIGURES.get(i);
            if (f.counter()) {
                counter(b, f.metric(), f.help() + " (ended contexts included)", t.values()[i]);
            } else {
                gauge(b, f.metric(), f.help(), t.values()[i]);
            }
        }
    }

    /** Peer state: counts by state, and one series per peer (its state, heartbeat age and round trip). */
    private static void peers(StringBuilder b, NodeEngine engine) {
        java.util.List<NodeEngine.PeerFigures> peers = engine.peerFigures();
        long now = System.nanoTime();
        b.append("# HELP softcmi_peers Peer nodes the failure detector watches, by state (dead: recently declared dead)\n");
        b.append("# TYPE softcmi_peers gauge\n");
        for (PeerMonitor.Health h : PeerMonitor.Health.values()) {
            long n = peers.stream().filter(p -> p.view().health() == h).count();
            line(b, "softcmi_peers{state=\"" + AdminService.stateWord(h) + "\"}", n);
        }
        b.append("# HELP softcmi_peer_state A peer's state: 0 alive, 1 suspected, 2 dead\n");
        b.append("# TYPE softcmi_peer_state gauge\n");
        for (NodeEngine.PeerFigures p : peers) {
            line(b, "softcmi_peer_state" + labels(p), p.view().health().ordinal());
        }
        b.append("# HELP softcmi_peer_heartbeat_age_seconds Time since a peer last answered a heartbeat\n");
        b.append("# TYPE softcmi_peer_heartbeat_age_seconds gauge\n");
        for (NodeEngine.PeerFigures p : peers) {
            long ms = p.view().lastHeardAgoMillis(now);
            if (ms >= 0) {
                line(b, "softcmi_peer_heartbeat_age_seconds" + labels(p), ms / 1e3);
            }
        }
        b.append("# HELP softcmi_peer_rtt_seconds Round trip of a peer's last answered heartbeat\n");
        b.append("# TYPE softcmi_peer_rtt_seconds gauge\n");
        for (NodeEngine.PeerFigures p : peers) {
            if (p.view().rttNanos() >= 0) {
                line(b, "softcmi_peer_rtt_seconds" + labels(p), p.view().rttNanos() / 1e9);
            }
        }
        b.append("# HELP softcmi_peer_links Relationships with a peer: proxies here of its segments (imports_from),"
            + " its imports of this node's segments (exports_to)\n");
        b.append("# TYPE softcmi_peer_links gauge\n");
        for (NodeEngine.PeerFigures p : peers) {
            String l = labels(p);
            line(b, "softcmi_peer_links" + l.substring(0, l.length() - 1) + ",kind=\"imports_from\"}", p.importsFrom());
            line(b, "softcmi_peer_links" + l.substring(0, l.length() - 1) + ",kind=\"exports_to\"}", p.exportsTo());
        }
    }

    /** Remote data traffic per client node and per segment ({@link Traffic}). */
    private static void traffic(StringBuilder b, NodeEngine engine, DataPathStats d) {
        java.util.Set<Long> live = engine.segmentIds();
        d.bySegment.retain(live::contains);
        java.util.Map<String, io.softcmi.cmi.internal.NodeAddressImpl> known = new java.util.HashMap<>();
        for (NodeEngine.PeerFigures p : engine.peerFigures()) {
            known.put(FailureEvents.hex(p.view().peer()), p.view().peer());
        }
        java.util.Map<String, Traffic> peers = new java.util.TreeMap<>();
        d.byPeer.entries().forEach((k, t) -> peers.put(peerLabels(k, known.get(k)), t));
        java.util.Map<String, Traffic> segs = new java.util.TreeMap<>();
        d.bySegment.entries().forEach((k, t) -> segs.put(String.format(Locale.ROOT, "segment=\"%d\"", k), t));
        trafficSeries(b, "peer", "client node", peers);
        trafficSeries(b, "segment", "segment", segs);
    }

    /** Labels of a client node: its id's first 8 hex digits, and its address if the node watches it ("-" if not). */
    private static String peerLabels(String hex, io.softcmi.cmi.internal.NodeAddressImpl a) {
        String where = a == null ? "-" : (a.host().indexOf(':') >= 0 && !a.host().startsWith("[") ? "[" + a.host() + "]"
            : a.host()) + ":" + a.port();
        return "peer=\"" + (hex.length() >= 8 ? hex.substring(0, 8) : hex) + "\",address=\"" + escape(where) + "\"";
    }

    private static void trafficSeries(StringBuilder b, String by, String what, java.util.Map<String, Traffic> rows) {
        String p = "softcmi_" + by + "_data_";
        b.append("# HELP ").append(p).append("requests_total Remote data requests served, by ").append(what).append('\n');
        b.append("# TYPE ").append(p).append("requests_total counter\n");
        rows.forEach((l, t) -> line(b, p + "requests_total{" + l + "}", t.requests.sum()));
        b.append("# HELP ").append(p).append("requests_refused_total Remote data requests answered with an access error, by ")
            .append(what).append('\n');
        b.append("# TYPE ").append(p).append("requests_refused_total counter\n");
        rows.forEach((l, t) -> line(b, p + "requests_refused_total{" + l + "}", t.refused.sum()));
        b.append("# HELP ").append(p).append("bytes_total Bytes of remote data moved, by ").append(what)
            .append(" and direction\n");
        b.append("# TYPE ").append(p).append("bytes_total counter\n");
        rows.forEach((l, t) -> {
            line(b, p + "bytes_total{" + l + ",dir=\"read\"}", t.bytesRead.sum());
            line(b, p + "bytes_total{" + l + ",dir=\"written\"}", t.bytesWritten.sum());
        });
        b.append("# HELP ").append(p).append("service_seconds Time the home spends on one remote request, by ")
            .append(what).append('\n');
        b.append("# TYPE ").append(p).append("service_seconds histogram\n");
        rows.forEach((l, t) -> {
            long[] c = t.bucketCounts();
            long cumulative = 0;
            for (int i = 0; i < Traffic.BOUNDS_NANOS.length; i++) {
                cumulative += c[i];
                line(b, p + "service_seconds_bucket{" + l + ",le=\"" + Traffic.le(i) + "\"}", cumulative);
            }
            cumulative += c[c.length - 1];
            line(b, p + "service_seconds_bucket{" + l + ",le=\"+Inf\"}", cumulative);
            line(b, p + "service_seconds_sum{" + l + "}", t.serviceNanos.sum() / 1e9);
            line(b, p + "service_seconds_count{" + l + "}", cumulative);
        });
    }

    private static String labels(NodeEngine.PeerFigures p) {
        io.softcmi.cmi.internal.NodeAddressImpl a = p.view().peer();
        String host = a.host().indexOf(':') >= 0 && !a.host().startsWith("[") ? "[" + a.host() + "]" : a.host();
        return "{peer=\"" + java.util.HexFormat.of().formatHex(a.nodeId(), 0, 4) + "\",address=\"" + escape(host + ":" + a.port())
            + "\"}";
    }

    private static String escape(String v) {
        return v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
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
