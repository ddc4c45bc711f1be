package io.softcmi.node;

import io.softcmi.wire.SegmentFileLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * An exported segment as the remote data path sees it: the daemon's own mapping of the segment
 * file, read and written on behalf of remote processes, and its lifetime state. Published in a
 * concurrent map when first exported and removed when the segment is reclaimed; after that the
 * mapping is closed and a late access fails with {@code CMI_ERROR_SINVAL}.
 */
final class RemoteTarget {
    private static final VarHandle BREAK = ValueLayout.JAVA_LONG.varHandle();
    final long segmentId;
    final long size;
    final boolean extensible;
    final MemorySegment header;
    final MemorySegment data;
    /** Set when the segment is marked for deletion: remote access then fails with TOKEN. */
    volatile boolean marked;
    /** Ranges in flux ({@link FluxRanges#snapshot()}): remote access to them fails with CONSIST. */
    volatile long[] flux = new long[0];

    RemoteTarget(long segmentId, long size, boolean extensible, MemorySegment whole) {
        this.segmentId = segmentId;
        this.size = size;
        this.extensible = extensible;
        this.header = whole.asSlice(0, SegmentFileLayout.HEADER_SIZE);
        this.data = whole.asSlice(SegmentFileLayout.HEADER_SIZE, size);
    }

    long currentBreak() {
        return extensible ? (long) BREAK.getAcquire(header, SegmentFileLayout.BREAK_OFFSET) : size;
    }
}
