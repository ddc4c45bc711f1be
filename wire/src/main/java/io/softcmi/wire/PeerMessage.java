package io.softcmi.wire;

import static io.softcmi.wire.WireLists.putLongs;
import static io.softcmi.wire.WireLists.getLongs;

import java.util.List;

/**
 * Messages of the peer protocol between node daemons (authentication, failure detection,
 * imports of a home's segments, ended contexts), framed and answered like every
 * {@link ControlMessage}.
 */
public sealed interface PeerMessage extends ControlMessage {
    /** Peer authentication, step 1. @param nodeId caller's node id @param nonce caller's challenge */
    record PeerHello(byte[] nodeId, byte[] nonce) implements PeerMessage {
        public MessageType type() { return MessageType.PEER_HELLO; }
        public void encode(WireWriter w) { w.putBytes(nodeId).putBytes(nonce); }
        static PeerHello decode(WireReader r) { return new PeerHello(r.getBytes(64), r.getBytes(64)); }
    }

    /**
     * Peer authentication, step 2: the callee proves the key and challenges back.
     *
     * @param nodeId callee's node id
     * @param nonce callee's challenge
     * @param proof HMAC of the caller's challenge
     */
    record PeerChallenge(byte[] nodeId, byte[] nonce, byte[] proof) implements PeerMessage {
        public MessageType type() { return MessageType.PEER_CHALLENGE; }
        public void encode(WireWriter w) { w.putBytes(nodeId).putBytes(nonce).putBytes(proof); }
        static PeerChallenge decode(WireReader r) { return new PeerChallenge(r.getBytes(64), r.getBytes(64), r.getBytes(64)); }
    }

    /** Peer authentication, step 3. @param proof HMAC of the callee's challenge */
    record PeerProof(byte[] proof) implements PeerMessage {
        public MessageType type() { return MessageType.PEER_PROOF; }
        public void encode(WireWriter w) { w.putBytes(proof); }
        static PeerProof decode(WireReader r) { return new PeerProof(r.getBytes(64)); }
    }

    /**
     * A node imports one of the callee's segments.
     *
     * @param segId segment at the home
     * @param generation generation from the handle
     * @param writeThrough uncached import
     * @param importer importing node's address bytes
     * @param proxyId the proxy's id at the importer
     */
    record PeerImport(long segId, long generation, boolean writeThrough, byte[] importer, long proxyId,
            long importerContext) implements PeerMessage {
        public MessageType type() { return MessageType.PEER_IMPORT; }
        public void encode(WireWriter w) { w.putLong(segId).putLong(generation).putBoolean(writeThrough).putBytes(importer).putLong(proxyId).putLong(importerContext); }
        static PeerImport decode(WireReader r) { return new PeerImport(r.getLong(), r.getLong(), r.getBoolean(), r.getBytes(MAX_STRING), r.getLong(), r.getLong()); }
    }

    /**
     * A heartbeat of the failure detector: the callee answers {@link Ok} at once.
     *
     * @param sender the calling node's address bytes (so the callee watches it back)
     */
    record PeerPing(byte[] sender) implements PeerMessage {
        public MessageType type() { return MessageType.PEER_PING; }
        public void encode(WireWriter w) { w.putBytes(sender); }
        static PeerPing decode(WireReader r) { return new PeerPing(r.getBytes(MAX_STRING)); }
    }

    /**
     * A context of the calling node ended (its process exited or died): the callee tells the
     * contexts that shared segments with it ({@code CMI_EVENT_RCTXT_DOWN} at homes of its imports,
     * {@code CMI_EVENT_HCTXT_DOWN} at importers of its segments).
     *
     * @param node the calling node's address bytes
     * @param contextId the context's session id at that node
     * @param died true if the process died (no {@code fini}): its unwritten stores are in flux
     * @param segmentIds segments the context created at the caller (the callee's proxies of them
     *        lose their home context)
     */
    record PeerContextDown(byte[] node, long contextId, boolean died, List<Long> segmentIds) implements PeerMessage {
        public MessageType type() { return MessageType.PEER_CONTEXT_DOWN; }
        public void encode(WireWriter w) { w.putBytes(node).putLong(contextId).putBoolean(died); putLongs(w, segmentIds); }
        static PeerContextDown decode(WireReader r) {
            return new PeerContextDown(r.getBytes(MAX_STRING), r.getLong(), r.getBoolean(), getLongs(r));
        }
    }

    /**
     * A node asks a segment's home for its descriptor (break and state), for an import's status.
     * Answered with {@link SegmentReply}.
     *
     * @param segId segment at the home
     * @param generation generation from the handle
     */
    record PeerDescribe(long segId, long generation) implements PeerMessage {
        public MessageType type() { return MessageType.PEER_DESCRIBE; }
        public void encode(WireWriter w) { w.putLong(segId).putLong(generation); }
        static PeerDescribe decode(WireReader r) { return new PeerDescribe(r.getLong(), r.getLong()); }
    }

    /** A node's proxy of the callee's segment is gone. @param segId segment @param importer node @param proxyId proxy */
    record PeerUnimport(long segId, byte[] importer, long proxyId) implements PeerMessage {
        public MessageType type() { return MessageType.PEER_UNIMPORT; }
        public void encode(WireWriter w) { w.putLong(segId).putBytes(importer).putLong(proxyId); }
        static PeerUnimport decode(WireReader r) { return new PeerUnimport(r.getLong(), r.getBytes(MAX_STRING), r.getLong()); }
    }
}
