package io.softcmi.node;

import io.softcmi.cmi.Access;

/**
 * An access token at the home node ({@code tok_new}/{@code tok_newva}): which segment, which
 * node (null for any), which rights over which range, and its 128-bit secret. Immutable apart
 * from its {@link #gate}; the data path finds it by id in a concurrent map. Revocation
 * ({@code tok_del}) closes the gate (later requests are refused), removes it from the map and
 * waits for the requests admitted before to end ({@link AccessGate#drain}).
 */
final class HomeToken {
    private final long id;
    private final long segmentId;
    private final byte[] node;
    private final int access;
    private final long offset;
    private final long size;
    private final long secretHi;
    private final long secretLo;
    private final long creatorSession;
    /** The requests admitted under this token. */
    final AccessGate gate = new AccessGate();

    HomeToken(long id, long segmentId, byte[] node, int access, long offset, long size, long secretHi, long secretLo,
            long creatorSession) {
        this.id = id;
        this.segmentId = segmentId;
        this.node = node;
        this.access = access;
        this.offset = offset;
        this.size = size;
        this.secretHi = secretHi;
        this.secretLo = secretLo;
        this.creatorSession = creatorSession;
    }

    long id() {
        return id;
    }

    long segmentId() {
        return segmentId;
    }

    /** @return the node it is bound to, or null for any node */
    byte[] node() {
        return node;
    }

    int access() {
        return access;
    }

    long offset() {
        return offset;
    }

    long size() {
        return size;
    }

    long creatorSession() {
        return creatorSession;
    }

    boolean allows(Access a) {
        return (access & (1 << a.ordinal())) != 0;
    }

    boolean covers(long off, long len) {
        return off >= offset && len >= 0 && len <= size && off - offset <= size - len;
    }

    boolean overlaps(long off, long len) {
        return off - offset < size && offset - off < len;
    }

    /** Constant-time comparison of the secret. */
    boolean secretMatches(long hi, long lo) {
        return ((hi ^ secretHi) | (lo ^ secretLo)) == 0;
    }
}
