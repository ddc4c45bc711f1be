package io.softcmi.node;

import io.softcmi.cmi.SegFlag;
import io.softcmi.cmi.internal.FlagBits;
import io.softcmi.wire.ControlMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The tables {@code cmiadm} lists: nodes, contexts, segments, exports, imports, tokens,
 * reservations, peers (the failure detector's view), the client caches' figures the contexts
 * report ({@code caches}, {@link CacheReports}), and the remote data path's counters
 * ({@code dataplane}), the sessions clients keep in the node registry ({@code sessions},
 * {@link NodeRegistry}) and the processes the node started ({@code runs}, {@link ProcessService}). Ids only, never secrets. Called under the engine's lock.
 */
final class AdminService {
    private final NodeState state;
    private final java.util.function.Supplier<List<PeerMonitor.PeerView>> peers;

    AdminService(NodeState state, java.util.function.Supplier<List<PeerMonitor.PeerView>> peers) {
        this.state = state;
        this.peers = peers;
    }

    /**
     * The word {@code cmiadm peers} and the metrics use for a peer's health.
     *
     * @param h a health
     * @return {@code alive}, {@code suspected} or {@code dead}
     */
    static String stateWord(PeerMonitor.Health h) {
        return switch (h) {
            case UP -> "alive";
            case SUSPECT -> "suspected";
            case DEAD -> "dead";
        };
    }

    /**
     * How many proxies here have their home at {@code peer} (imports from it), and how many
     * imports of this node's segments {@code peer} holds (exports to it).
     *
     * @param peer a peer
     * @return {imports from, exports to}
     */
    long[] links(io.softcmi.cmi.internal.NodeAddressImpl peer) {
        byte[] id = peer.nodeId();
        long from = state.proxies.values().stream().filter(p -> java.util.Arrays.equals(p.home.nodeId(), id)).count();
        long to = state.homeImports.stream().filter(i -> {
            io.softcmi.cmi.internal.NodeAddressImpl importer = FailureEvents.address(i.importer());
            return importer != null && java.util.Arrays.equals(importer.nodeId(), id);
        }).count();
        return new long[] {from, to};
    }

    ControlMessage list(String table) {
        List<List<String>> rows = new ArrayList<>();
        return switch (table.toLowerCase(Locale.ROOT)) {
            case "nodes" -> {
                String listen = state.config.listenHost();
                listen = (listen.indexOf(':') >= 0 && !listen.startsWith("[") ? "[" + listen + "]" : listen) + ":"
                    + state.config.boundListenPort();
                String given = state.config.advertiseHost();
                rows.add(List.of(state.config.name(), state.address.toString(), "self", "up", listen,
                    given == null || AdvertisedAddress.isLiteral(given) ? "-" : given));
                yield new ControlMessage.Table(List.of("NAME", "ADDRESS", "ROLE", "STATE", "LISTEN", "ADVERTISED-NAME"), rows);
            }
            case "contexts" -> {
                for (Session s : state.sessions.values()) {
                    rows.add(List.of(str(s.id), str(s.pid), s.user, s.processName.strip(), str(s.created.size()),
                        str(s.attachments.size()), s.reservation == null ? "-" : str(s.reservation.key),
                        s.started.toString()));
                }
                yield new ControlMessage.Table(List.of("CONTEXT", "PID", "USER", "PROCESS", "SEGMENTS", "ATTACHES",
                    "RESERVATION", "STARTED"), rows);
            }
            case "segments" -> {
                for (Segment s : state.segments.values()) {
                    rows.add(List.of(str(s.id), str(s.size), str(s.brk), flags(s.flags), s.stateName(),
                        str(s.attachCount), str(s.creatorPid), s.reservation == null ? "-" : str(s.reservation.key)));
                }
                yield new ControlMessage.Table(List.of("ID", "SIZE", "BREAK", "FLAGS", "STATE", "ATTACHES", "CREATOR",
                    "RESERVATION"), rows);
            }
            case "exports" -> {
                for (NodeState.Export e : state.exports.values()) {
                    Session s = state.sessions.get(e.session());
                    rows.add(List.of(str(e.id()), str(e.segmentId()), s == null ? "-" : str(s.pid),
                        e.writeThrough() ? "write-through" : "cached"));
                }
                yield new ControlMessage.Table(List.of("EXPORT", "SEGMENT", "EXPORTER", "POLICY"), rows);
            }
            case "imports" -> {
                for (Proxy p : state.proxies.values()) {
                    rows.add(List.of(str(p.id), p.home.toString(), str(p.homeSegmentId), str(p.importerPid),
                        p.writeThrough ? "write-through" : "cached", p.token.length == 0 ? "-" : "set",
                        str(p.attachCount), p.marked ? "marked" : "active"));
                }
                for (NodeState.HomeImport i : state.homeImports) {
                    rows.add(List.of("-", "self", str(i.segmentId()), "node " + java.util.HexFormat.of().formatHex(i.importer(),
                        5, 9), i.writeThrough() ? "write-through" : "cached", "-", "-", "remote proxy " + i.proxyId()));
                }
                yield new ControlMessage.Table(List.of("PROXY", "HOME", "HOME-SEGMENT", "IMPORTER", "POLICY", "TOKEN",
                    "ATTACHES", "STATE"), rows);
            }
            case "tokens" -> {
                for (HomeToken t : state.tokens.values()) {
                    rows.add(List.of(str(t.id()), str(t.segmentId()),
                        t.node() == null ? "any" : java.util.HexFormat.of().formatHex(t.node(), 0, 4),
                        access(t.access()), t.offset() + "+" + t.size()));
                }
                yield new ControlMessage.Table(List.of("TOKEN", "SEGMENT", "NODE", "ACCESS", "RANGE"), rows);
            }
            case "reservations" -> {
                for (MemoryReservation r : state.reservations.values()) {
                    long users = state.sessions.values().stream().filter(s -> s.reservation == r).count();
                    rows.add(List.of(str(r.key), r.owner, str(r.reserved), str(r.allocated), str(users)));
                }
                yield new ControlMessage.Table(List.of("KEY", "USER", "RESERVED", "ALLOCATED", "CONTEXTS"), rows);
            }
            case "peers" -> {
                long now = System.nanoTime();
                for (PeerMonitor.PeerView v : peers.get()) {
                    long[] links = links(v.peer());
                    long heard = v.lastHeardAgoMillis(now);
                    rows.add(List.of(v.peer().toString(), stateWord(v.health()), heard < 0 ? "-" : str(heard),
                        v.rttNanos() < 0 ? "-" : str(Math.max(1, v.rttNanos() / 1000)), str(v.heartbeats()), str(links[0]),
                        str(links[1]), java.time.Instant.ofEpochMilli(v.sinceMillis()).toString()));
                }
                yield new ControlMessage.Table(List.of("ADDRESS", "STATE", "LAST-HEARD-MS", "RTT-US", "HEARTBEATS",
                    "IMPORTS-FROM", "EXPORTS-TO", "SINCE"), rows);
            }
            case "caches" -> state.cacheReports.table(state.sessions.values());
            case "sessions" -> state.registry.table("session", "SESSION");
            case "runs" -> state.processes.table();
            case "dataplane" -> {
                state.dataStats.snapshot().forEach((k, v) -> rows.add(List.of(k, str(v))));
                long[] directory = state.coherence.sizes();
                rows.add(List.of("directory_segments", str(directory[0])));
                rows.add(List.of("directory_caches", str(directory[1])));
                yield new ControlMessage.Table(List.of("FIGURE", "VALUE"), rows);
            }
            default -> throw NodeException.inval("unknown table '" + table
                + "' (nodes, contexts, segments, exports, imports, tokens, reservations, peers, caches, dataplane, sessions, runs)");
        };
    }

    private static String access(int bits) {
        StringBuilder b = new StringBuilder();
        for (io.softcmi.cmi.Access a : FlagBits.fromBits(bits, io.softcmi.cmi.Access.class)) {
            b.append(b.isEmpty() ? "" : ",").append(a.name().toLowerCase(Locale.ROOT));
        }
        return b.toString();
    }

    private static String flags(int bits) {
        var set = FlagBits.fromBits(bits, SegFlag.class);
        if (set.isEmpty()) {
            return "-";
        }
        StringBuilder b = new StringBuilder();
        for (SegFlag f : set) {
            b.append(b.isEmpty() ? "" : ",").append(f.name().toLowerCase(Locale.ROOT));
        }
        return b.toString();
    }

    private static String str(long v) {
        return Long.toString(v);
    }
}
