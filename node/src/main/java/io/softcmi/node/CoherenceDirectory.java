package io.softcmi.node;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The home's directory for coherent caches of its exported segments ({@code docs/cache.md}):
 * per segment, which remote caches read which lines, which wrote which lines, which may hold
 * unwritten lines, and a bounded log of writes numbered by a per-segment epoch. An acquire asks
 * "what did anyone else write since my epoch?" and gets byte ranges back, so a cache keeps
 * the lines that only it writes or that nobody writes (release consistency with
 * self-invalidation, as ArgoDSM's Carina/Pyxis directory).
 *
 * <p>Writes that bypass the caches count as written by "nobody in particular" (every cache
 * invalidates them): plain PUT and CAS requests, and home-local processes holding a writable
 * attach (they write the mapping directly, so while one is attached an acquire invalidates the
 * whole segment). Each segment's state is guarded by its own monitor; the I/O loops call in
 * without the node's lock.
 */
final class CoherenceDirectory {
    /** Bytes per bit of the read/written maps (the smallest line size a client may choose). */
    static final int GRANULE_SHIFT = 9;
    /** Writes remembered per segment; an acquire from before the oldest gets the whole segment. */
    static final int LOG_CAPACITY = 4096;
    /** Writer id of writes that bypass the caches (PUT, CAS, home-local attaches). */
    static final long NO_CACHE = 0;

    private final ConcurrentHashMap<Long, SegmentLines> segments = new ConcurrentHashMap<>();
    /** Writable attaches on the home, attach id to segment id. */
    private final ConcurrentHashMap<Long, Long> localWriters = new ConcurrentHashMap<>();
    /**
     * Orders the making of a segment's directory (which counts the writable attaches of
     * {@link #localWriters} it finds) with {@link #localAttached} and {@link #localDetached}
     * (which change that map, then count in the directory if there is one already): each attach
     * is then counted once, either by the making or by the attach. Nothing takes a segment's
     * monitor while holding it.
     */
    private final Object localLock = new Object();

    /** One remote cache (a context) of one segment, as the home knows it. */
    static final class Holder {
        final long cacheId;
        final byte[] node;
        /** The caching context's session id at its node (-1 where unknown). */
        final long session;
        /** Filled with a token that grants WRITE: it may hold stores not written back yet. */
        boolean mayHoldDirty;
        final BitSet read = new BitSet();
        final BitSet written = new BitSet();

        Holder(long cacheId, byte[] node, long session) {
            this.cacheId = cacheId;
            this.node = node.clone();
            this.session = session;
        }
    }

    /** The directory of one segment. */
    static final class SegmentLines {
        long epoch;
        int localWriters;
        /**
         * The epoch the last writable home-local attach ended at: what it wrote was never logged,
         * so an acquire since before it gets the whole segment.
         */
        long localEnded;
        long dropped;
        private final long[] logEpoch = new long[LOG_CAPACITY];
        private final long[] logWriter = new long[LOG_CAPACITY];
        private final long[] logStart = new long[LOG_CAPACITY];
        private final long[] logEnd = new long[LOG_CAPACITY];
        private int head;
        private int count;
        final Map<Long, Holder> holders = new HashMap<>();

        void log(long writer, long start, long end) {
            epoch++;
            if (count == LOG_CAPACITY) {
                dropped = logEpoch[head];
                head = (head + 1) % LOG_CAPACITY;
                count--;
            }
            int at = (head + count) % LOG_CAPACITY;
            logEpoch[at] = epoch;
            logWriter[at] = writer;
            logStart[at] = start;
            logEnd[at] = end;
            count++;
        }
    }

    private SegmentLines lines(long segmentId) {
        SegmentLines s = segments.get(segmentId);
        if (s != null) {
            return s;
        }
        synchronized (localLock) {
            return segments.computeIfAbsent(segmentId, id -> {
                SegmentLines made = new SegmentLines();
                made.localWriters = (int) localWriters.values().stream().filter(v -> v.longValue() == id).count();
                return made;
            });
        }
    }

    /**
     * The monitor that guards a segment's directory. A writer holds it from the first byte it
     * writes to the log entry of its write, so that no acquire is answered between the two: an
     * acquire then never misses a write that a fill could already return (two readers could
     * otherwise see two writes in different orders, IRIW).
     *
     * @param create make the segment's directory if it has none
     * @return the monitor, or null if the segment has no directory and {@code create} is false
     *         (nobody caches it: nothing to order)
     */
    Object monitor(long segmentId, boolean create) {
        return create ? lines(segmentId) : segments.get(segmentId);
    }

    /**
     * A FILL was served.
     *
     * @return the segment's epoch when it was read
     */
    long filled(long segmentId, long cacheId, byte[] node, long session, boolean writable, long offset, long length) {
        SegmentLines s = lines(segmentId);
        synchronized (s) {
            Holder h = s.holders.computeIfAbsent(cacheId, id -> new Holder(id, node, session));
            h.mayHoldDirty |= writable;
            if (length > 0) {
                h.read.set(granule(offset), granule(offset + length - 1) + 1);
            }
            return s.epoch;
        }
    }

    /** Bytes {@code [offset, offset + length)} were written (after they were applied) by {@code cacheId}, or {@link #NO_CACHE}. */
    void wrote(long segmentId, long cacheId, byte[] node, long offset, long length) {
        SegmentLines s = cacheId == NO_CACHE ? segments.get(segmentId) : lines(segmentId);
        if (s == null || length <= 0) {
            return; // nobody caches this segment: nothing to invalidate
        }
        synchronized (s) {
            s.log(cacheId, offset, offset + length);
            if (cacheId != NO_CACHE) {
                Holder h = s.holders.computeIfAbsent(cacheId, id -> new Holder(id, node, -1));
                h.written.set(granule(offset), granule(offset + length - 1) + 1);
            }
        }
    }

    /**
     * An ACQUIRE: writes ranges {@code long start | long end} made by anyone but {@code cacheId}
     * since {@code since} into {@code out} at its position.
     *
     * @param size the segment's size (the range answered when the log cannot say better)
     * @return the segment's current epoch
     */
    long changes(long segmentId, long size, long since, long cacheId, ByteBuffer out, int maxRanges) {
        SegmentLines s = lines(segmentId);
        synchronized (s) {
            if (s.localWriters > 0 || since < s.localEnded || since < s.dropped) {
                out.putLong(0).putLong(size);
                return s.epoch;
            }
            List<long[]> ranges = new ArrayList<>();
            for (int i = 0; i < s.count; i++) {
                int at = (s.head + i) % LOG_CAPACITY;
                if (s.logEpoch[at] > since && s.logWriter[at] != cacheId) {
                    ranges.add(new long[] {s.logStart[at], s.logEnd[at]});
                }
            }
            ranges.sort((x, y) -> Long.compare(x[0], y[0]));
            List<long[]> merged = new ArrayList<>();
            for (long[] r : ranges) {
                long[] last = merged.isEmpty() ? null : merged.get(merged.size() - 1);
                if (last != null && r[0] <= last[1]) {
                    last[1] = Math.max(last[1], r[1]);
                } else {
                    merged.add(r);
                }
            }
            if (merged.size() > maxRanges) {
                out.putLong(0).putLong(size);
            } else {
                for (long[] r : merged) {
                    out.putLong(r[0]).putLong(r[1]);
                }
            }
            return s.epoch;
        }
    }

    /** A home-local attach of a segment (writable ones count as writers of every line). */
    void localAttached(long segmentId, long attachId, boolean writable) {
        if (!writable) {
            return;
        }
        SegmentLines s;
        synchronized (localLock) {
            localWriters.put(attachId, segmentId);
            s = segments.get(segmentId);
        }
        if (s != null) {
            synchronized (s) {
                s.localWriters++;
            }
        }
    }

    /** A home-local attach ended. */
    void localDetached(long attachId) {
        SegmentLines s;
        synchronized (localLock) {
            Long segmentId = localWriters.remove(attachId);
            s = segmentId == null ? null : segments.get(segmentId);
        }
        if (s != null) {
            synchronized (s) {
                s.localWriters--;
                s.localEnded = ++s.epoch; // what it wrote is in no log entry
            }
        }
    }

    /** The segment was reclaimed. */
    void segmentGone(long segmentId) {
        segments.remove(segmentId);
    }

    /**
     * The caches that may hold unwritten stores to a segment, by cache id, with their node:
     * what {@code seg_check}/{@code seg_recovery} and {@code CONSIST} need (issue 8).
     */
    Map<Long, byte[]> mayHoldDirty(long segmentId) {
        SegmentLines s = segments.get(segmentId);
        Map<Long, byte[]> m = new HashMap<>();
        if (s != null) {
            synchronized (s) {
                s.holders.values().stream().filter(h -> h.mayHoldDirty).forEach(h -> m.put(h.cacheId, h.node.clone()));
            }
        }
        return m;
    }

    /**
     * A remote context ended (or its whole node): the lines its caches filled while their token
     * granted WRITE may hold stores it never wrote back. Those caches are forgotten.
     *
     * @param node the context's node id
     * @param session its session id, or -1 for every context of the node
     * @return segment id to {@code {start, end}} byte ranges that may be half-written
     */
    Map<Long, List<long[]>> dropHolders(byte[] node, long session) {
        Map<Long, List<long[]>> out = new HashMap<>();
        for (Map.Entry<Long, SegmentLines> e : segments.entrySet()) {
            SegmentLines s = e.getValue();
            synchronized (s) {
                var it = s.holders.values().iterator();
                while (it.hasNext()) {
                    Holder h = it.next();
                    if (!java.util.Arrays.equals(h.node, node) || session != -1 && h.session != session) {
                        continue;
                    }
                    it.remove();
                    if (!h.mayHoldDirty) {
                        continue;
                    }
                    List<long[]> ranges = out.computeIfAbsent(e.getKey(), k -> new ArrayList<>());
                    for (int g = h.read.nextSetBit(0); g >= 0; g = h.read.nextSetBit(g + 1)) {
                        int end = h.read.nextClearBit(g);
                        ranges.add(new long[] {(long) g << GRANULE_SHIFT, (long) end << GRANULE_SHIFT});
                        g = end;
                    }
                }
            }
        }
        return out;
    }

    /**
     * A remote cache detached with nothing left unwritten ({@link io.softcmi.wire.DataProtocol#OP_FORGET}):
     * its record goes, if it is one of {@code node}'s (and of {@code session}'s, where the record
     * knows its session). The log entries of its writes stay: other caches still invalidate them.
     *
     * @return whether a record was forgotten
     */
    boolean forget(long segmentId, long cacheId, byte[] node, long session) {
        SegmentLines s = segments.get(segmentId);
        if (s == null) {
            return false;
        }
        synchronized (s) {
            Holder h = s.holders.get(cacheId);
            if (h == null || !java.util.Arrays.equals(h.node, node) || h.session != -1 && h.session != session) {
                return false;
            }
            s.holders.remove(cacheId);
            return true;
        }
    }

    /** @return segments with a directory, and remote caches known, for {@code cmiadm dataplane} */
    long[] sizes() {
        long holders = 0;
        for (SegmentLines s : segments.values()) {
            synchronized (s) {
                holders += s.holders.size();
            }
        }
        return new long[] {segments.size(), holders};
    }

    private static int granule(long offset) {
        return (int) Math.min(Integer.MAX_VALUE - 1, offset >>> GRANULE_SHIFT);
    }
}
