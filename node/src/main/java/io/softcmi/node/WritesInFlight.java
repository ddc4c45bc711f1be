package io.softcmi.node;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * Remote stores the home has started to receive but not finished (issue 8, cmi(7) "Consistent
 * data"): a bulk store split into chunks ({@code PUT} requests that name the end of the whole
 * transfer) and a chunk being read straight into the mapping. When the writer's connection
 * breaks with such a write open, its range is torn; when the writing context then turns out to
 * have died, the range is in flux until its creator recovers it.
 *
 * <p>Called by the data path's I/O loops (no lock) and by the engine (under its lock);
 * everything here is concurrent.
 */
final class WritesInFlight {
    /** One remote context that writes: its node id (hex) and session id at that node. */
    record Writer(String node, long session) {
        static Writer of(byte[] nodeId, long session) {
            return new Writer(HexFormat.of().formatHex(nodeId), session);
        }
    }

    /** Bytes {@code [start, end)} of a segment. */
    record Range(long segmentId, long start, long end) {
    }

    /** One connection's open writes. */
    private static final class Open {
        final Writer writer;
        final List<Range> ranges = new ArrayList<>();

        Open(Writer writer) {
            this.writer = writer;
        }
    }

    private final Map<Object, Open> open = new ConcurrentHashMap<>();
    private final Map<Writer, List<Range>> torn = new ConcurrentHashMap<>();
    /** Whether a writer's context is known to have ended ({@link NodeState#endedContexts}). */
    private final Predicate<Writer> ended;

    /**
     * @param ended whether a writer's context is known to have ended; the engine records an end
     *     there before it takes the writer's stores ({@link #takeFor})
     */
    WritesInFlight(Predicate<Writer> ended) {
        this.ended = ended;
    }

    /**
     * A write of {@code [start, end)} starts on {@code connection} (idempotent for the same
     * range), before its first byte lands. Refused once the writer's context is known to have
     * ended: its stores in flight were taken already ({@link #takeFor}), so one that opened now
     * and tore would be charged to a context nobody asks about again, its bytes outside the
     * ranges in flux. (The range is recorded before the end is looked for, and the engine
     * records the end before it takes the stores: either this sees the end, or the engine takes
     * the range.)
     *
     * @return false if the store must not start (the writer's context ended)
     */
    boolean started(Object connection, Writer writer, long segmentId, long start, long end) {
        Open o = open.computeIfAbsent(connection, c -> new Open(writer));
        Range added = new Range(segmentId, start, end);
        synchronized (o) {
            for (Range r : o.ranges) {
                if (r.segmentId == segmentId && r.end == end) {
                    added = null; // a later chunk of the same transfer
                    break;
                }
            }
            if (added != null) {
                o.ranges.add(added);
            }
        }
        if (!ended.test(writer)) {
            return true;
        }
        if (added != null) {
            synchronized (o) {
                o.ranges.remove(added); // nothing of it landed (if the engine took it meanwhile, it is in flux: no harm)
            }
        }
        return false;
    }

    /** The write ending at {@code end} completed on {@code connection}. */
    void finished(Object connection, long segmentId, long end) {
        Open o = open.get(connection);
        if (o == null) {
            return;
        }
        synchronized (o) {
            o.ranges.removeIf(r -> r.segmentId == segmentId && r.end == end);
        }
    }

    /**
     * The connection closed: its open writes are torn, charged to its writer. Atomic with
     * {@link #takeFor} and {@link #takeForNode} (all are rare: a closed connection, an ended
     * context), so that a range moving from open to torn is never missed by both of its looks.
     */
    synchronized void connectionClosed(Object connection) {
        Open o = open.remove(connection);
        if (o == null) {
            return;
        }
        synchronized (o) {
            if (!o.ranges.isEmpty()) {
                torn.computeIfAbsent(o.writer, w -> new java.util.concurrent.CopyOnWriteArrayList<>()).addAll(o.ranges);
            }
        }
    }

    /**
     * The writer's context ended: its torn writes and those still open, forgotten here.
     *
     * @param writer the context
     * @return the ranges it may have left half-written
     */
    synchronized List<Range> takeFor(Writer writer) {
        List<Range> out = new ArrayList<>();
        List<Range> t = torn.remove(writer);
        if (t != null) {
            out.addAll(t);
        }
        for (Open o : open.values()) {
            if (o.writer.equals(writer)) {
                synchronized (o) {
                    out.addAll(o.ranges);
                    o.ranges.clear();
                }
            }
        }
        return out;
    }

    /**
     * A whole node was declared dead: every context of it.
     *
     * @param nodeHex the node id in hex
     * @return the ranges its contexts may have left half-written
     */
    synchronized List<Range> takeForNode(String nodeHex) {
        List<Range> out = new ArrayList<>();
        for (Writer w : List.copyOf(torn.keySet())) {
            if (w.node().equals(nodeHex)) {
                out.addAll(takeFor(w));
            }
        }
        for (Open o : open.values()) {
            if (o.writer.node().equals(nodeHex)) {
                synchronized (o) {
                    out.addAll(o.ranges);
                    o.ranges.clear();
                }
            }
        }
        return out;
    }

    /** The writer left cleanly ({@code fini}): whatever it tore, it was told (its store failed). */
    synchronized void forget(Writer writer) {
        torn.remove(writer);
    }
}
