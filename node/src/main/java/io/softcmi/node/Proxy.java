package io.softcmi.node;

import io.softcmi.cmi.internal.NodeAddressImpl;
import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.SegmentDescriptor;

/**
 * A proxy segment ({@code seg_imp}): this node's handle on a segment homed elsewhere (or a new
 * "remote" view of one of its own). It has node scope: any process of the node may attach it by
 * id, using the token its importer set. It lives until its importer removes it or exits and the
 * last attach goes, like any segment. Guarded by the engine's lock.
 */
final class Proxy {
    final long id;
    final NodeAddressImpl home;
    final long homeSegmentId;
    final long size;
    final int flags;
    final boolean writeThrough;
    final long importerSession;
    final long importerPid;
    byte[] token = new byte[0];
    int attachCount;
    boolean marked;
    long cacheBytes = -1;
    /** The home context (the segment's creator's session at the home). */
    final long homeContext;
    /** Set while the home node is suspected: attaches fail with RECONFIG until it resumes. */
    boolean quiesced;
    /** Set once the home node was declared dead: access fails with SINVAL. */
    boolean homeDown;

    Proxy(long id, NodeAddressImpl home, long homeSegmentId, long size, int flags, boolean writeThrough,
            long importerSession, long importerPid, long homeContext) {
        this.homeContext = homeContext;
        this.id = id;
        this.home = home;
        this.homeSegmentId = homeSegmentId;
        this.size = size;
        this.flags = flags;
        this.writeThrough = writeThrough;
        this.importerSession = importerSession;
        this.importerPid = importerPid;
    }

    ControlMessage.ProxyReply describe() {
        SegmentDescriptor d = new SegmentDescriptor(id, size, flags, size, "", 0, importerSession, importerPid,
            marked ? Segment.MARKED : quiesced ? Segment.QUIESCED : Segment.ACTIVE, attachCount, false, true);
        return new ControlMessage.ProxyReply(d, home.toBytes(), homeSegmentId, writeThrough, token.clone());
    }
}
