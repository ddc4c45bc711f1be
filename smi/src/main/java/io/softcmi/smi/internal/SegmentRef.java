package io.softcmi.smi.internal;

import io.softcmi.smi.SmiError;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * What another process needs to reach a CMI segment: its id on its node (for processes of the
 * same node, which attach it directly), its node's address, the exported handle and an access
 * token (for processes of other nodes, which import it). Stored as a 1 KiB entry:
 * <pre>
 *   0   STATE   1 when valid (written last, after a store barrier)
 *   8   SEG_ID  the CMI segment id on its home node
 *   16  SIZE    the segment size
 *   24  NODE_LEN, HANDLE_LEN, TOKEN_LEN (4 bytes each)
 *   40  node address, handle, token bytes
 * </pre>
 *
 * @param cmiSegId segment id on the home node
 * @param size size in bytes
 * @param node the home node address ({@code NodeAddress.toBytes})
 * @param handle the exported handle ({@code RemoteSegmentHandle.toBytes})
 * @param token a node-agnostic read/write token ({@code CmiToken.toBytes})
 */
record SegmentRef(long cmiSegId, long size, byte[] node, byte[] handle, byte[] token) {
    static final long STATE = 0;
    private static final int HEADER = 40;

    /** Encodes into a fresh entry-sized buffer, STATE left 0. */
    MemorySegment encode() {
        if (HEADER + node.length + handle.length + token.length > Layout.ENTRY_SIZE) {
            throw Errors.fail(SmiError.OTHER, "segment descriptor too long (" + (node.length + handle.length
                + token.length) + " bytes)");
        }
        MemorySegment e = MemorySegment.ofArray(new byte[Layout.ENTRY_SIZE]);
        e.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, cmiSegId);
        e.set(ValueLayout.JAVA_LONG_UNALIGNED, 16, size);
        e.set(ValueLayout.JAVA_INT_UNALIGNED, 24, node.length);
        e.set(ValueLayout.JAVA_INT_UNALIGNED, 28, handle.length);
        e.set(ValueLayout.JAVA_INT_UNALIGNED, 32, token.length);
        long p = HEADER;
        MemorySegment.copy(node, 0, e, ValueLayout.JAVA_BYTE, p, node.length);
        p += node.length;
        MemorySegment.copy(handle, 0, e, ValueLayout.JAVA_BYTE, p, handle.length);
        p += handle.length;
        MemorySegment.copy(token, 0, e, ValueLayout.JAVA_BYTE, p, token.length);
        return e;
    }

    /**
     * Decodes an entry read in one piece.
     *
     * @return the descriptor, or null if the entry's STATE is not valid
     */
    static SegmentRef decode(MemorySegment e) {
        if (e.get(ValueLayout.JAVA_LONG_UNALIGNED, STATE) != 1) {
            return null;
        }
        int nl = e.get(ValueLayout.JAVA_INT_UNALIGNED, 24);
        int hl = e.get(ValueLayout.JAVA_INT_UNALIGNED, 28);
        int tl = e.get(ValueLayout.JAVA_INT_UNALIGNED, 32);
        if (nl < 0 || hl < 0 || tl < 0 || HEADER + (long) nl + hl + tl > Layout.ENTRY_SIZE) {
            throw Errors.fail(SmiError.OTHER, "corrupt segment descriptor");
        }
        long p = HEADER;
        byte[] node = e.asSlice(p, nl).toArray(ValueLayout.JAVA_BYTE);
        p += nl;
        byte[] handle = e.asSlice(p, hl).toArray(ValueLayout.JAVA_BYTE);
        p += hl;
        byte[] token = e.asSlice(p, tl).toArray(ValueLayout.JAVA_BYTE);
        return new SegmentRef(e.get(ValueLayout.JAVA_LONG_UNALIGNED, 8), e.get(ValueLayout.JAVA_LONG_UNALIGNED, 16),
            node, handle, token);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SegmentRef r && r.cmiSegId == cmiSegId && r.size == size && Arrays.equals(r.node, node)
            && Arrays.equals(r.handle, handle) && Arrays.equals(r.token, token);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(cmiSegId) * 31 + Arrays.hashCode(handle);
    }

    @Override
    public String toString() {
        return "SegmentRef[seg " + cmiSegId + ", " + size + " bytes]";
    }
}
