package io.softcmi.node;

import io.softcmi.cmi.Access;

/**
 * An access token at the home node ({@code tok_new}/{@code tok_newva}): which segment, which
 * node (null for any), which rights over which range, and its 128-bit secret. Immutable; the
 * data path finds it by id in a concurrent map, so revocation ({@code tok_del}) is one removal
 * and takes effect on the next access.
 */
record HomeToken(long id, long segmentId, byte[] node, int access, long offset, long size, long secretHi,
        long secretLo, long creatorSession) {

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
