package io.softcmi.node;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.CmiAccessError;
import io.softcmi.cmi.internal.AccessStatus;
import io.softcmi.wire.DataProtocol;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * The home's side of the coherent-cache requests of one data connection ({@code docs/cache.md}):
 * {@link DataProtocol#OP_FILL} registration, {@link DataProtocol#OP_DIFF} (apply byte runs, then
 * log them as written by the sender's cache), {@link DataProtocol#OP_ACQUIRE} (the ranges
 * others wrote since the sender's epoch), {@link DataProtocol#OP_FORGET} (a detached cache's
 * record goes), and the log entries of the uncached writes
 * ({@link DataProtocol#OP_PUT}, {@code CAS}). DIFF, ACQUIRE and FORGET are admitted under their
 * token ({@link HomeAccess#admit}) for the length of their call, so that {@code tok_del} waits for
 * them. Called by the connection's {@link DataIoLoop} only.
 */
final class CoherentAccess {
    /** Runs at most this far apart are logged as one written range. */
    static final long LOG_GAP = 1 << CoherenceDirectory.GRANULE_SHIFT;
    private final byte[] clientNode;
    private final long clientSession;
    private final HomeAccess access;
    private final DataPathStats stats;
    /** Bytes the last successful diff wrote (read by the connection that owns this, on its thread). */
    private long lastDiffBytes;
    /**
     * The token admission ({@link AccessGate}) of the DIFF, ACQUIRE or FORGET being served: each
     * is done within its call, and leaves before it returns (never waits on its client).
     */
    private final Admission admission = new Admission(() -> { });

    CoherentAccess(DataHandshake.DataClient client, HomeAccess access, DataPathStats stats) {
        this.clientNode = client.node();
        this.clientSession = client.session();
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
        long epoch = access.coherence().filled(segmentId, cacheId, clientNode, clientSession, writable, offset, length);
        forgetIfReclaimed(segmentId);
        return epoch << 1 | (writable ? 1 : 0);
    }

    /**
     * After a request that passed its check made or used the segment's directory: if the
     * segment was reclaimed meanwhile (its target unpublished, then its directory dropped), drop
     * the directory this request may have made again, or it would stay for ever (ids are never
     * reused). The reclaim unpublishes before it drops; this looks after it made: one of the two
     * drops sees the other's change. (The request itself then fails on the closed mapping.)
     */
    private void forgetIfReclaimed(long segmentId) {
        if (access.size(segmentId) == 0) {
            access.coherence().segmentGone(segmentId);
        }
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
        int first = p + DataProtocol.REQUEST_HEADER;
        int end = first + payload;
        // Pass 1: the runs are well formed; their span.
        long lo = Long.MAX_VALUE;
        long hi = Long.MIN_VALUE;
        int runs = 0;
        for (int at = first; at < end; ) {
            if (end - at < DataProtocol.DIFF_RUN_HEADER) {
                return DataProtocol.STATUS_MALFORMED;
            }
            long offset = in.getLong(at);
            int length = in.getInt(at + 8);
            at += DataProtocol.DIFF_RUN_HEADER;
            if (length < 0 || length > end - at || offset < 0 || offset > Long.MAX_VALUE - length) {
                return DataProtocol.STATUS_MALFORMED;
            }
            lo = Math.min(lo, offset);
            hi = Math.max(hi, offset + length);
            at += length;
            runs++;
        }
        if (runs == 0) {
            return DataProtocol.STATUS_OK;
        }
        byte admitted = access.admitToken(admission, clientNode, segmentId, tokenId, secretHi, secretLo);
        if (admitted != DataProtocol.STATUS_OK) {
            stats.errors.increment();
            return admitted;
        }
        try {
            return admittedDiff(in, segmentId, tokenId, secretHi, secretLo, cacheId, first, end, lo, hi, runs);
        } finally {
            admission.leave(); // every run applied or refused, and logged
        }
    }

    private byte admittedDiff(ByteBuffer in, long segmentId, long tokenId, long secretHi, long secretLo,
            long cacheId, int first, int end, long lo, long hi, int runs) {
        // One check for the span when the token covers it (the common case); else run by run.
        boolean spanOk = access.check(clientNode, segmentId, tokenId, secretHi, secretLo, Access.WRITE, lo, hi - lo)
            == DataProtocol.STATUS_OK;
        MemorySegment input = MemorySegment.ofBuffer(in.duplicate().clear());
        if (access.size(segmentId) == 0) { // not exported here: no directory is made for it
            stats.errors.increment();
            return AccessStatus.toWire(CmiAccessError.SINVAL);
        }
        // The bytes are written and logged under the directory's monitor: no acquire is answered
        // between a fill that may already return them and the log entry that names them.
        try {
            return diffUnderMonitor(in, first, end, segmentId, tokenId, secretHi, secretLo, cacheId, spanOk, input, runs);
        } finally {
            forgetIfReclaimed(segmentId);
        }
    }

    private byte diffUnderMonitor(ByteBuffer in, int first, int end, long segmentId, long tokenId, long secretHi,
            long secretLo, long cacheId, boolean spanOk, MemorySegment input, int runs) {
        synchronized (access.coherence().monitor(segmentId, true)) {
            WordRuns words = null;
            long bytes = 0;
            long logStart = -1;
            long logEnd = -1;
            for (int at = first; at < end; ) {
                long offset = in.getLong(at);
                int length = in.getInt(at + 8);
                at += DataProtocol.DIFF_RUN_HEADER;
                if (!spanOk) {
                    byte status = access.check(clientNode, segmentId, tokenId, secretHi, secretLo, Access.WRITE, offset, length);
                    if (status != DataProtocol.STATUS_OK) {
                        stats.errors.increment();
                        return stop(words, segmentId, cacheId, logStart, logEnd, status);
                    }
                }
                boolean sameRange = logStart >= 0 && offset >= logEnd && offset - logEnd <= LOG_GAP;
                try {
                    if (words == null) {
                        words = new WordRuns(mapping(segmentId));
                    }
                    if (!sameRange) {
                        words.flush(); // the range about to be logged is written in full first
                    }
                    // Word by word: one 8-byte store that arrives as several runs is never seen
                    // half-applied (runs of one word always fall in one logged range).
                    words.run(input, at, offset, length);
                } catch (IllegalStateException | IndexOutOfBoundsException unmapped) {
                    return stop(words, segmentId, cacheId, logStart, logEnd, AccessStatus.toWire(CmiAccessError.SINVAL));
                }
                // Runs close together are logged as one range (an acquire elsewhere may drop a few
                // more bytes than were written, never fewer).
                if (sameRange) {
                    logEnd = Math.max(logEnd, offset + length);
                } else {
                    log(segmentId, cacheId, logStart, logEnd);
                    logStart = offset;
                    logEnd = offset + length;
                }
                bytes += length;
                at += length;
            }
            try {
                if (words != null) {
                    words.flush();
                }
            } catch (IllegalStateException unmapped) {
                return stop(words, segmentId, cacheId, logStart, logEnd, AccessStatus.toWire(CmiAccessError.SINVAL));
            }
            log(segmentId, cacheId, logStart, logEnd);
            stats.diffRuns.add(runs);
            stats.request(DataProtocol.OP_DIFF, bytes);
            lastDiffBytes = bytes;
            return DataProtocol.STATUS_OK;
        }
    }

    /**
     * A store whose whole payload is in hand (a write-through {@code PUT}): copies it into the
     * mapping, all but its last aligned word first ({@code body} bytes, as
     * {@link DataProtocol#bodyBeforeLastWord}), and logs it as written by no cache. While the
     * segment is cached anywhere, the copy and the log entry happen under the directory's
     * monitor, as a DIFF's do: no acquire is answered between a fill that may already return the
     * new bytes and the entry that names them (two readers could otherwise see two stores in
     * different orders). Otherwise a full fence orders the copy before the look for a directory,
     * so that a first fill making one meanwhile either reads the new bytes or finds them logged.
     *
     * @throws IllegalStateException if the segment was reclaimed meanwhile
     */
    void put(long segmentId, long offset, MemorySegment src, long srcOffset, MemorySegment target, int payload, int body) {
        Object monitor = access.coherence().monitor(segmentId, false);
        if (monitor != null) {
            synchronized (monitor) {
                copy(src, srcOffset, target, payload, body);
                access.coherence().wrote(segmentId, CoherenceDirectory.NO_CACHE, clientNode, offset, payload);
            }
            return;
        }
        copy(src, srcOffset, target, payload, body);
        VarHandle.fullFence();
        access.coherence().wrote(segmentId, CoherenceDirectory.NO_CACHE, clientNode, offset, payload);
    }

    private static void copy(MemorySegment src, long srcOffset, MemorySegment target, int payload, int body) {
        WordCopy.toMapping(src, srcOffset, target, 0, body);
        if (body < payload) {
            VarHandle.storeStoreFence(); // the last word after the rest (LAST_WORD)
            WordCopy.toMapping(src, srcOffset + body, target, body, payload - body);
        }
    }

    /**
     * A store too large for the input buffer is about to stream into the mapping over several
     * reads, with no monitor held: its whole range is logged before its first byte lands, so an
     * acquire answered while it streams drops the lines (a fill may already return some of its
     * bytes), and again by {@link #bulkPutEnded} once its last byte has landed, for the fills made
     * meanwhile.
     */
    void bulkPutStarting(long segmentId, long offset, long length) {
        access.coherence().wrote(segmentId, CoherenceDirectory.NO_CACHE, clientNode, offset, length);
    }

    /** The last byte of a streamed store ({@link #bulkPutStarting}) landed: logs its range again. */
    void bulkPutEnded(long segmentId, long offset, long length) {
        VarHandle.fullFence(); // the bytes before the look for a directory, as in put
        access.coherence().wrote(segmentId, CoherenceDirectory.NO_CACHE, clientNode, offset, length);
    }

    /**
     * A CAS that passed its ATOMIC check: the compare-and-exchange and, when it swapped, the log
     * entry, under the directory's monitor if the segment is cached anywhere.
     *
     * @return the word's value before
     */
    long cas(long segmentId, long offset, MemorySegment word, long expected, long swap) {
        Object monitor = access.coherence().monitor(segmentId, false);
        if (monitor == null) {
            return casAndLog(segmentId, offset, word, expected, swap);
        }
        synchronized (monitor) {
            return casAndLog(segmentId, offset, word, expected, swap);
        }
    }

    private long casAndLog(long segmentId, long offset, MemorySegment word, long expected, long swap) {
        long before = HomeAccess.compareAndExchange(word, expected, swap);
        if (before == expected) {
            access.coherence().wrote(segmentId, CoherenceDirectory.NO_CACHE, clientNode, offset, 8);
        }
        return before;
    }

    /** @return the bytes the last successful {@link #diff} wrote */
    long lastDiffBytes() {
        return lastDiffBytes;
    }

    /** Ends a diff that a run stopped: what was applied before it stays applied, and is logged. */
    private byte stop(WordRuns words, long segmentId, long cacheId, long logStart, long logEnd, byte status) {
        try {
            if (words != null) {
                words.flush();
            }
        } catch (IllegalStateException unmapped) {
            // reclaimed meanwhile: nothing more to write
        }
        log(segmentId, cacheId, logStart, logEnd);
        return status;
    }

    /** @return the whole mapping of a segment the home still has. @throws IllegalStateException if it was reclaimed */
    private MemorySegment mapping(long segmentId) {
        MemorySegment data = access.slice(segmentId, 0, access.size(segmentId));
        if (data == null) {
            throw new IllegalStateException("reclaimed");
        }
        return data;
    }

    private void log(long segmentId, long cacheId, long start, long end) {
        if (start >= 0 && end > start) {
            access.coherence().wrote(segmentId, cacheId, clientNode, start, end - start);
        }
    }

    /**
     * Serves a FORGET whose header is in {@code in} at {@code p}: the sender's cache {@code b}
     * detached with nothing unwritten, and its record at the directory goes.
     *
     * @return the reply status: OK, or the token check's
     */
    byte forget(ByteBuffer in, int p) {
        long segmentId = in.getLong(p + 16);
        byte status = access.admitToken(admission, clientNode, segmentId, in.getLong(p + 24), in.getLong(p + 32),
            in.getLong(p + 40));
        if (status != DataProtocol.STATUS_OK) {
            stats.errors.increment();
            return status;
        }
        try {
            access.coherence().forget(segmentId, in.getLong(p + 64), clientNode, clientSession);
        } finally {
            admission.leave();
        }
        stats.request(DataProtocol.OP_FORGET, 0);
        return DataProtocol.STATUS_OK;
    }

    /** Serves an ACQUIRE whose header is in {@code in} at {@code p}: writes the whole reply into {@code out}. */
    void acquire(ByteBuffer in, int p, long requestId, ByteBuffer out) {
        long segmentId = in.getLong(p + 16);
        byte status = access.admitToken(admission, clientNode, segmentId, in.getLong(p + 24), in.getLong(p + 32),
            in.getLong(p + 40));
        int at = out.position();
        if (status != DataProtocol.STATUS_OK) {
            stats.errors.increment();
            DataProtocol.writeReplyAt(out, at, status, requestId, 0, 0);
            out.position(at + DataProtocol.REPLY_HEADER);
            return;
        }
        out.position(at + DataProtocol.REPLY_HEADER);
        long epoch;
        try {
            epoch = access.coherence().changes(segmentId, access.size(segmentId), in.getLong(p + 56), in.getLong(p + 64),
                out, DataProtocol.MAX_ACQUIRE_RANGES);
        } finally {
            admission.leave();
        }
        forgetIfReclaimed(segmentId);
        int payload = out.position() - at - DataProtocol.REPLY_HEADER;
        stats.acquireRanges.add(payload / 16);
        stats.request(DataProtocol.OP_ACQUIRE, 0);
        DataProtocol.writeReplyAt(out, at, DataProtocol.STATUS_OK, requestId, epoch, payload);
    }
}
