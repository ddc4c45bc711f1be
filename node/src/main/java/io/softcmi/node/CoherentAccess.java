package io.softcmi.node;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.CmiAccessError;
import io.softcmi.cmi.internal.AccessStatus;
import io.softcmi.wire.DataProtocol;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * The home's side of the coherent-cache requests of one data connection ({@code docs/cache.md}):
 * {@link DataProtocol#OP_FILL} registration, {@link DataProtocol#OP_DIFF} (apply byte runs, then
 * log them as written by the sender's cache) and {@link DataProtocol#OP_ACQUIRE} (the ranges
 * others wrote since the sender's epoch). Called by the connection's {@link DataIoLoop} only.
 */
final class CoherentAccess {
    private final byte[] clientNode;
    private final HomeAccess access;
    private final DataPathStats stats;

    CoherentAccess(byte[] clientNode, HomeAccess access, DataPathStats stats) {
        this.clientNode = clientNode;
        this.access = access;
        this.stats = stats;
    }

    /**
     * A FILL that passed its READ check: registers the reader.
     *
     * @param in the input, the request header at {@code p}
     * @return the reply's value: the segment's epoch shifted left by one, or'ed with 1 when the
     *         token grants WRITE (the cache then lets stores to these lines wait for a release)
     */
    long filled(ByteBuffer in, int p, long segmentId, long offset, long length) {
        long cacheId = in.getLong(p + 64);
        boolean writable = access.grantsWrite(in.getLong(p + 24));
        return access.coherence().filled(segmentId, cacheId, clientNode, writable, offset, length) << 1 | (writable ? 1 : 0);
    }

    /**
     * Applies a DIFF whose whole frame is in {@code in} at {@code p}.
     *
     * @return the reply status: OK, or the first refused run's
     */
    byte diff(ByteBuffer in, int p, int payload) {
        long segmentId = in.getLong(p + 16);
        long tokenId = in.getLong(p + 24);
        long secretHi = in.getLong(p + 32);
        long secretLo = in.getLong(p + 40);
        long cacheId = in.getLong(p + 64);
        MemorySegment input = MemorySegment.ofBuffer(in.duplicate().clear());
        int at = p + DataProtocol.REQUEST_HEADER;
        int end = at + payload;
        long bytes = 0;
        while (at < end) {
            if (end - at < DataProtocol.DIFF_RUN_HEADER) {
                return DataProtocol.STATUS_MALFORMED;
            }
            long offset = in.getLong(at);
            int length = in.getInt(at + 8);
            at += DataProtocol.DIFF_RUN_HEADER;
            if (length < 0 || length > end - at) {
                return DataProtocol.STATUS_MALFORMED;
            }
            byte status = access.check(clientNode, segmentId, tokenId, secretHi, secretLo, Access.WRITE, offset, length);
            if (status != DataProtocol.STATUS_OK) {
                stats.errors.increment();
                return status;
            }
            MemorySegment target = access.slice(segmentId, offset, length);
            try {
                if (target == null) {
                    throw new IllegalStateException("reclaimed");
                }
                MemorySegment.copy(input, at, target, 0, length);
            } catch (IllegalStateException unmapped) {
                return AccessStatus.toWire(CmiAccessError.SINVAL);
            }
            access.coherence().wrote(segmentId, cacheId, clientNode, offset, length);
            stats.diffRuns.increment();
            bytes += length;
            at += length;
        }
        stats.request(DataProtocol.OP_DIFF, bytes);
        return DataProtocol.STATUS_OK;
    }

    /** Serves an ACQUIRE whose header is in {@code in} at {@code p}: writes the whole reply into {@code out}. */
    void acquire(ByteBuffer in, int p, long requestId, ByteBuffer out) {
        long segmentId = in.getLong(p + 16);
        byte status = access.checkToken(clientNode, segmentId, in.getLong(p + 24), in.getLong(p + 32), in.getLong(p + 40));
        int at = out.position();
        if (status != DataProtocol.STATUS_OK) {
            stats.errors.increment();
            DataProtocol.writeReplyAt(out, at, status, requestId, 0, 0);
            out.position(at + DataProtocol.REPLY_HEADER);
            return;
        }
        out.position(at + DataProtocol.REPLY_HEADER);
        long epoch = access.coherence().changes(segmentId, access.size(segmentId), in.getLong(p + 56), in.getLong(p + 64),
            out, DataProtocol.MAX_ACQUIRE_RANGES);
        int payload = out.position() - at - DataProtocol.REPLY_HEADER;
        stats.acquireRanges.add(payload / 16);
        stats.request(DataProtocol.OP_ACQUIRE, 0);
        DataProtocol.writeReplyAt(out, at, DataProtocol.STATUS_OK, requestId, epoch, payload);
    }
}
