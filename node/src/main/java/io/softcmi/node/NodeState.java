package io.softcmi.node;

import io.softcmi.cmi.internal.NodeAddressImpl;
import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The node's tables: sessions, segments, exports, reservations, memory. Everything here is
 * guarded by {@link NodeEngine}'s lock; the data path never touches it.
 */
final class NodeState {
    final NodeConfig config;
    final NodeAddressImpl address;
    final MemoryAccount memory;
    final SecureRandom random = new SecureRandom();
    final Map<Long, Session> sessions = new LinkedHashMap<>();
    final Map<Long, Segment> segments = new LinkedHashMap<>();
    final Map<Long, Export> exports = new LinkedHashMap<>();
    final Map<Long, MemoryReservation> reservations = new LinkedHashMap<>();
    private long nextSessionId = 1;
    private long nextSegmentId = 1;
    private long nextAttachId = 1;
    private long nextExportId = 1;

    /** One {@code seg_exp} of a segment. */
    record Export(long id, long segmentId, long session, boolean writeThrough, byte[] handle) {
    }

    NodeState(NodeConfig config, NodeAddressImpl address) {
        this.config = config;
        this.address = address;
        this.memory = new MemoryAccount(config.memoryBytes());
    }

    long newSessionId() { return nextSessionId++; }
    long newSegmentId() { return nextSegmentId++; }
    long newAttachId() { return nextAttachId++; }
    long newExportId() { return nextExportId++; }

    /** @return a random reservation key; never 0, which means "no reservation" */
    long newReservationKey() {
        long k;
        do {
            k = random.nextLong() & Long.MAX_VALUE;
        } while (k == 0 || reservations.containsKey(k));
        return k;
    }

    Segment segment(long id) {
        Segment s = segments.get(id);
        if (s == null) {
            throw NodeException.inval("no segment " + id + " on this node");
        }
        return s;
    }
}
