package io.softcmi.node;

import io.softcmi.wire.DataProtocol;

/**
 * One data connection's share of the home's traffic tables ({@link DataPathStats#byPeer},
 * {@link DataPathStats#bySegment}): the bytes the request being served reads from or writes to
 * its segment, recorded for the client's node and for the segment once the request is answered.
 * Used by the connection's I/O loop only.
 */
final class RequestTraffic {
    private final DataPathStats stats;
    /** This client node's traffic (null when the table is full). */
    private final Traffic peer;
    /** The last segment served and its traffic: most connections use one segment. */
    private long segmentId = -1;
    private Traffic segment;
    /** Bytes read from / written to the segment by the request being served. */
    private long read;
    private long written;

    /**
     * @param stats the home's figures
     * @param clientNode the client's node id
     */
    RequestTraffic(DataPathStats stats, byte[] clientNode) {
        this.stats = stats;
        this.peer = stats.byPeer.of(java.util.HexFormat.of().formatHex(clientNode));
    }

    /** A request's service begins: nothing read or written yet. */
    void start() {
        read = 0;
        written = 0;
    }

    /** Counts the request in the node's totals and in its bytes. */
    void count(byte op, long bytes) {
        stats.request(op, bytes);
        if (op == DataProtocol.OP_GET || op == DataProtocol.OP_FILL) {
            read += bytes;
        } else if (op == DataProtocol.OP_PUT) {
            written += bytes;
        }
    }

    /** @param bytes what the request (a diff) wrote to its segment */
    void wrote(long bytes) {
        written = bytes;
    }

    /**
     * Records the request in its peer's and its segment's traffic.
     *
     * @param segmentId the segment the request named
     * @param status its reply's status ({@link DataProtocol#STATUS_OK} for a store still being read)
     * @param took its service time (ns)
     */
    void record(long segmentId, byte status, long took) {
        boolean ok = status == DataProtocol.STATUS_OK;
        if (peer != null) {
            peer.record(read, written, !ok && status != DataProtocol.STATUS_MALFORMED, took);
        }
        if (ok) { // refused requests may name any segment id: they count for the peer only
            if (segmentId != this.segmentId) {
                segment = stats.bySegment.of(segmentId);
                this.segmentId = segmentId;
            }
            if (segment != null) {
                segment.record(read, written, false, took);
            }
        }
    }
}
