package io.softcmi.node;

import io.softcmi.cmi.SegFlag;
import io.softcmi.wire.SegmentDescriptor;

/**
 * One segment homed on this node, as the engine tracks it. Guarded by the engine's lock.
 *
 * <p>Lifetime (cmi(7) "Segment Lifetime"): ACTIVE until {@code CMI_SEG_RM} or the creator's
 * exit marks it; a marked segment refuses new attaches and is reclaimed (file deleted, memory
 * returned) when its attach count reaches zero. Ids are never reused.
 */
final class Segment {
    static final int ACTIVE = 0;
    static final int QUIESCED = 1;
    static final int MARKED = 2;

    final long id;
    final long size;
    final int flags;
    final long creatorSession;
    final long creatorPid;
    final SegmentFile file;
    final MemoryReservation reservation;
    long brk;
    long charged;
    int state = ACTIVE;
    int attachCount;
    int exports;
    boolean everExported;
    long cacheBytes = -1;
    /** Set once the break moved down: a later grow frees the range again before it publishes. */
    boolean shrunk;

    Segment(long id, long size, int flags, long creatorSession, long creatorPid, SegmentFile file,
            MemoryReservation reservation, long brk, long charged) {
        this.id = id;
        this.size = size;
        this.flags = flags;
        this.creatorSession = creatorSession;
        this.creatorPid = creatorPid;
        this.file = file;
        this.reservation = reservation;
        this.brk = brk;
        this.charged = charged;
    }

    boolean has(SegFlag f) {
        return (flags & (1 << f.ordinal())) != 0;
    }

    boolean marked() {
        return state == MARKED;
    }

    SegmentDescriptor describe() {
        return new SegmentDescriptor(id, size, flags, brk, file.path().toString(),
            io.softcmi.wire.SegmentFileLayout.HEADER_SIZE, creatorSession, creatorPid, state, attachCount, everExported,
            false);
    }

    String stateName() {
        return switch (state) {
            case ACTIVE -> "active";
            case QUIESCED -> "quiesced";
            default -> "marked";
        };
    }
}
