package io.softcmi.cmi.internal.cache;

import io.softcmi.wire.DataProtocol;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The cache of one imported segment in one context ({@code docs/cache.md}): a table of lines of
 * {@code lineSize} bytes, filled from the home on a miss (sequential misses read ahead up to
 * {@link #MAX_READ_AHEAD} lines in one request), written in place by stores, with a write mask
 * of the bytes stored so a write-back sends exactly those bytes (runs: two nodes writing
 * different bytes of one line both survive, and a word stored whole reaches the home whole).
 * At most {@code capacity} lines are resident; eviction (oldest fill first) writes a dirty line back before dropping it.
 *
 * <p>Release consistency with self-invalidation: a release ({@link #startReleaseAll},
 * {@link #startReleaseThread}, {@link #startReleaseRange}) sends the dirty lines' diffs; an
 * acquire ({@link #startAcquire}) asks the home which bytes someone else wrote since this cache's
 * last epoch and drops those lines (writing back any stores they hold first), keeping lines that
 * only this cache writes or that nobody writes.
 *
 * <p>Threads: loads that hit read the line without a lock (the table slot is read with acquire
 * semantics, lines are replaced, never refilled in place, and a line's bytes never serve another
 * line; a {@link LineHint} skips the table while its {@link HintEpoch} is current);
 * stores, misses ({@link LineFills}), write-backs and invalidations hold the cache's lock.
 */
public final class SegmentCache {
    /** Segments with more lines than this are not cached (the table is one array). */
    public static final long MAX_LINES = 1L << 24;
    /** Most lines one miss reads (sequential misses double the read-ahead up to this). */
    public static final int MAX_READ_AHEAD = 32;
    static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Line[].class);
    private static final VarHandle HINT_EPOCH;
    static {
        try {
            HINT_EPOCH = MethodHandles.lookup().findVarHandle(SegmentCache.class, "hintEpoch", HintEpoch.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final long size;
    final int lineSize;
    final int shift;
    final long lineCount;
    final LineTransport transport;
    final CacheStats stats;
    private final Consumer<long[]> lostStores;
    /** Told when the first line turns dirty (no dirty line before); see {@link #onFirstDirty}. */
    private volatile Runnable firstDirty = () -> { };
    final Line[] lines;
    final ReentrantLock lock = new ReentrantLock();
    // Guarded by lock.
    final LinkedHashSet<Long> order = new LinkedHashSet<>();
    /** Indices of the dirty lines. */
    final BitSet dirty = new BitSet();
    int dirtyCount;
    /** The lines each thread with an open flush epoch stored to. */
    final HashMap<Thread, BitSet> threadLines = new HashMap<>();
    private final LineFills fills = new LineFills(this);
    private final CacheRelease release;
    int resident;
    long epoch = -1;
    private final CacheAcquire acquire = new CacheAcquire(this);
    /** An acquire was sent and its reply is not applied yet: every access settles it first ({@link CacheAcquire}). */
    volatile boolean acquirePending;
    /** The epoch in which {@link LineHint}s are aimed now; {@link #endHintEpoch} replaces it. */
    volatile HintEpoch hintEpoch = new HintEpoch(true);
    volatile long capacityLines;
    /** Detached ({@link #close}): no hint is aimed any more, even at a line a miss in flight installs after it. */
    private volatile boolean closed;
    /** {@link #dirtyCount}, for readers without the lock. */
    volatile int dirtyLines;
    private volatile int residentLines;

    /** One cached line: its bytes and, once stored to, the mask of the bytes stored since its last write-back. */
    static final class Line {
        final byte[] data;
        /** Filled with a token that grants WRITE; stores to other lines go to the home, which refuses them. */
        final boolean writable;
        /** Bytes stored since the last write-back, a bit each ({@link WriteMask}); null while the line is clean. */
        long[] stored;
        /** The acquires started before its fill was sent ({@link CacheAcquire#generation}); later ones never drop it. Guarded by the lock. */
        long generation;

        Line(byte[] data, boolean writable) {
            this.data = data;
            this.writable = writable;
        }

        boolean dirty() {
            return stored != null;
        }
    }

    /** Diffs in flight and the lines they carry. */
    public record Flight(LineTransport.Pending pending, long[] lineOffsets) {
    }

    /** An acquire in flight, the {@code generation}-th of its cache ({@link CacheAcquire}). */
    public record AcquireFlight(LineTransport.Pending pending, byte[] ranges, long generation) {
    }

    /**
     * A cache for a segment.
     *
     * @param size the segment's size
     * @param lineSize a power of two, at most {@link DataProtocol#MAX_DIFF_PAYLOAD} / 2
     * @param capacityBytes bound on resident lines ({@code CMI_CTL_CACHE_RSEG_SET}); at least one line
     * @param lostStores told the offsets of lines whose background write-back failed
     */
    public SegmentCache(long size, int lineSize, long capacityBytes, LineTransport transport, CacheStats stats,
            Consumer<long[]> lostStores) {
        if (Integer.bitCount(lineSize) != 1 || lineSize > DataProtocol.MAX_DIFF_PAYLOAD / 2 || !cacheable(size, lineSize)) {
            throw new IllegalArgumentException("cannot cache " + size + " bytes in lines of " + lineSize);
        }
        this.size = size;
        this.lineSize = lineSize;
        this.shift = Integer.numberOfTrailingZeros(lineSize);
        this.lineCount = (size + lineSize - 1) >>> shift;
        this.transport = transport;
        this.stats = stats;
        this.lostStores = lostStores;
        this.lines = new Line[(int) lineCount];
        this.release = new CacheRelease(this, new DiffFrames(transport, stats));
        setCapacity(capacityBytes);
    }

    /** @return whether a segment of this size can be cached in lines of this size */
    public static boolean cacheable(long size, int lineSize) {
        return size > 0 && (size + lineSize - 1) / lineSize <= MAX_LINES;
    }

    /** {@code CMI_CTL_CACHE_RSEG_SET}: bounds the resident lines (applied at the next miss). */
    public void setCapacity(long bytes) {
        capacityLines = Math.max(1, bytes / lineSize);
    }

    /** @return the bound on resident bytes ({@code CMI_CTL_CACHE_RSEG_SET}, in whole lines) */
    public long capacityBytes() {
        return capacityLines * lineSize;
    }

    /** @return the route of this cache's requests ({@link LineTransport#route}), or null */
    public Object route() {
        return transport.route();
    }

    /** @return the line size */
    public int lineSize() {
        return lineSize;
    }

    /** @return bytes held: resident lines and the write masks of dirty ones */
    public long memoryBytes() {
        return (long) residentLines * lineSize + (long) dirtyLines * (lineSize / 8);
    }

    /**
     * Sets who is told when this cache goes from no dirty line to one (the context's background
     * writer, which sleeps while nothing is dirty). Called under the cache's lock: it must not block.
     *
     * @param hook the callback
     */
    void onFirstDirty(Runnable hook) {
        firstDirty = hook;
    }

    /** @return dirty lines now */
    public int dirtyLines() {
        return dirtyLines;
    }

    /** @return resident lines now */
    public int residentLines() {
        return residentLines;
    }

    // ---- loads and stores ----

    /**
     * Points {@code hint} at the line holding {@code off} if it is cached and whole (else at
     * nothing), in the current {@link HintEpoch}. The epoch is read before the table: a line
     * dropped after that read ends that epoch (its slot is cleared first), so the hint's check
     * fails; one dropped before it is not in the table any more. Likewise an acquire deferred
     * after the epoch was read ends it, and one deferred before is seen pending here. The
     * hint's owner thread only.
     */
    public void aim(LineHint hint, long off) {
        HintEpoch e = hintEpoch;
        long idx = off >>> shift;
        Line l = acquirePending || closed ? null : (Line) SLOT.getAcquire(lines, (int) idx);
        if (l == null || l.data.length != validLength(idx) || l.data.length < Long.BYTES) {
            hint.clear(); // a partial last line goes through the table: the hint's bounds are its array's
            return;
        }
        hint.data = l.data;
        hint.base = idx << shift;
        hint.epoch = e;
    }

    /**
     * Ends the current {@link HintEpoch}: no {@link LineHint} aimed so far serves another load.
     * Called after a line left the table or an acquire was deferred. Each epoch is replaced by
     * exactly one caller (an atomic swap), who then ends it, so two concurrent calls (a drop under
     * the lock, a deferred acquire under the settle lock) never leave a replaced epoch current.
     */
    void endHintEpoch() {
        HintEpoch old = (HintEpoch) HINT_EPOCH.getAndSet(this, new HintEpoch(true));
        old.current = false;
    }


    /**
     * Loads 1, 2, 4 or 8 bytes (native order).
     *
     * @throws LineFault if a miss failed
     */
    public long load(long off, int width) {
        if (acquirePending) {
            acquire.settleBefore(off >>> shift);
        }
        int at = (int) off & (lineSize - 1);
        if (at + width > lineSize) {
            byte[] tmp = new byte[8];
            for (int i = 0; i < width; i++) {
                tmp[i] = (byte) load(off + i, 1);
            }
            return LineWords.get(tmp, 0, width);
        }
        Line l = (Line) SLOT.getAcquire(lines, (int) (off >>> shift));
        if (l == null) {
            l = fills.miss(off >>> shift);
        }
        return LineWords.get(l.data, at, width);
    }

    /**
     * Stores the low {@code width} bytes of {@code bits} (native order) in the cached line.
     *
     * @param trackThread record the line for the calling thread's flush epoch
     * @throws LineFault if the line's miss failed
     */
    public void store(long off, int width, long bits, boolean trackThread) {
        if (acquirePending) {
            acquire.settle();
        }
        int at = (int) off & (lineSize - 1);
        if (at + width > lineSize) {
            byte[] tmp = new byte[8];
            LineWords.put(tmp, 0, width, bits);
            for (int i = 0; i < width; i++) {
                store(off + i, 1, tmp[i], trackThread);
            }
            return;
        }
        long idx = off >>> shift;
        for (int attempt = 0; ; attempt++) {
            lock.lock();
            try {
                Line l = lines[(int) idx];
                if (l == null && attempt >= LineFills.MISS_ATTEMPTS) {
                    l = fills.fillLocked(idx); // evicted again and again: fill and store under one lock
                }
                if (l != null) {
                    markDirty(idx, l, at, width, trackThread);
                    LineWords.put(l.data, at, width, bits);
                    return;
                }
            } finally {
                lock.unlock();
            }
            fills.miss(idx);
        }
    }

    /** Copies {@code dst.byteSize()} bytes at {@code off} into {@code dst}. @throws LineFault if a miss failed */
    public void read(long off, MemorySegment dst) {
        long len = dst.byteSize();
        if (acquirePending && len > 0) {
            acquire.settleBeforeRange(off >>> shift, (off + len - 1) >>> shift);
        }
        if (len > lineSize) {
            fills.prefetch(off >>> shift, (off + len - 1) >>> shift);
        }
        for (long done = 0; done < len; ) {
            long o = off + done;
            int at = (int) o & (lineSize - 1);
            int n = (int) Math.min(lineSize - at, len - done);
            Line l = (Line) SLOT.getAcquire(lines, (int) (o >>> shift));
            if (l == null) {
                l = fills.miss(o >>> shift);
            }
            MemorySegment.copy(MemorySegment.ofArray(l.data), at, dst, done, n);
            done += n;
        }
    }

    /**
     * Copies {@code src} into the cache at {@code off}; a line written whole needs no fill.
     *
     * @throws LineFault if a miss failed
     */
    public void write(long off, MemorySegment src, boolean trackThread) {
        if (acquirePending) {
            acquire.settle();
        }
        long len = src.byteSize();
        fills.missPartLines(off, len); // without the lock; a line evicted again meanwhile is filled under it below
        lock.lock();
        try {
            for (long done = 0; done < len; ) {
                long o = off + done;
                long idx = o >>> shift;
                int at = (int) o & (lineSize - 1);
                int n = (int) Math.min(lineSize - at, len - done);
                Line l = lines[(int) idx];
                if (l == null && at == 0 && n == validLength(idx)) {
                    makeRoom(); // written whole: no fill needed
                    l = new Line(new byte[lineSize], true);
                    l.generation = acquire.generation();
                    installLine(idx, l);
                } else if (l == null) {
                    l = fills.fillLocked(idx);
                }
                markDirty(idx, l, at, n, trackThread);
                MemorySegment.copy(src, done, MemorySegment.ofArray(l.data), at, n);
                done += n;
            }
        } finally {
            lock.unlock();
        }
    }

    /** Records a store of {@code [at, at + n)} in line {@code idx}. Holds the lock. */
    private void markDirty(long idx, Line l, int at, int n, boolean trackThread) {
        if (!l.writable) {
            throw new LineFault(DataProtocol.STATUS_PERM, idx << shift, false);
        }
        if (!l.dirty()) {
            l.stored = WriteMask.of(lineSize);
            dirty.set((int) idx);
            dirtyLines = ++dirtyCount;
            if (dirtyCount == 1) {
                firstDirty.run(); // after the volatile count: see ContextCache#dirtied
            }
        }
        WriteMask.set(l.stored, at, n);
        if (trackThread) {
            threadLines.computeIfAbsent(Thread.currentThread(), t -> new BitSet()).set((int) idx);
        }
    }

    // ---- table and eviction ----

    /** @return the bytes of line {@code idx} inside the segment (the last line may be short) */
    int validLength(long idx) {
        return (int) Math.min(lineSize, size - (idx << shift));
    }

    /** @return {@link CacheAcquire#generation}, for a fill or line made now. Holds the lock. */
    long acquireGeneration() {
        return acquire.generation();
    }

    /** @return this cache's misses */
    LineFills fills() {
        return fills;
    }

    /** Records the epoch a fill saw; fills of several threads may be installed out of order, so the oldest is kept (the next acquire then reports enough). Holds the lock. */
    void sawEpoch(long seen) {
        epoch = epoch < 0 ? seen : Math.min(epoch, seen);
    }

    /** Puts a line in the table; a fill in flight over it never installs it ({@link LineFills#superseded}). Holds the lock. */
    void installLine(long idx, Line l) {
        fills.superseded(idx);
        SLOT.setRelease(lines, (int) idx, l);
        order.add(idx);
        resident++;
        residentLines = resident;
    }

    /** Evicts the oldest lines until one more fits, writing dirty ones back first. Holds the lock. */
    void makeRoom() {
        while (resident >= capacityLines && !order.isEmpty()) {
            long victim = order.iterator().next();
            drop(List.of(victim));
            stats.evictions.increment();
        }
    }

    /** Drops lines, writing back (and waiting for) those that hold stores. Holds the lock. */
    void drop(Collection<Long> victims) {
        BitSet dirtyVictims = new BitSet();
        for (long v : victims) {
            Line l = lines[(int) v];
            if (l != null && l.dirty()) {
                dirtyVictims.set((int) v);
            }
        }
        if (!dirtyVictims.isEmpty()) {
            Outcome o = finish(release.send(dirtyVictims, 0, Integer.MAX_VALUE));
            if (o.status != 0) {
                lostStores.accept(o.failedOffsets);
            }
        }
        boolean any = false;
        for (long v : victims) {
            Line l = lines[(int) v];
            if (l != null) {
                SLOT.setRelease(lines, (int) v, null);
                order.remove(v);
                resident--;
                any = true;
            }
        }
        if (any) {
            endHintEpoch(); // after the slots are cleared: no LineHint serves a dropped line
        }
        residentLines = resident;
        if (resident == 0) {
            epoch = -1; // nothing cached: the next fill starts a fresh epoch
        }
    }

    // ---- release ({@link CacheRelease}) ----

    /** A release of every dirty line: sends the diffs; {@link #finish} waits for them. */
    public List<Flight> startReleaseAll() {
        return release.all();
    }

    /** {@code flush_fb}/{@code close_fb}: a release of the lines {@code thread} stored to since its last one. */
    public List<Flight> startReleaseThread(Thread thread) {
        return release.thread(thread);
    }

    /** {@code cflush}: a release of the dirty lines holding {@code [off, off + len)}. */
    public List<Flight> startReleaseRange(long off, long len) {
        return release.range(off, len);
    }

    /** What a set of flights came to. */
    public record Outcome(int status, long[] failedOffsets) {
    }

    /** Waits for every flight. @return 0, or the first failure's status with the offsets of every line lost */
    public static Outcome finish(List<Flight> flights) {
        int status = 0;
        List<Long> failed = new ArrayList<>();
        for (Flight f : flights) {
            int s = f.pending().await();
            if (s != 0) {
                if (status == 0) {
                    status = s;
                }
                for (long o : f.lineOffsets()) {
                    failed.add(o);
                }
            }
        }
        return new Outcome(status, failed.stream().mapToLong(Long::longValue).toArray());
    }

    // ---- acquire ({@link CacheAcquire}) ----

    /** An acquire: asks the home what others wrote since this cache's epoch. @return the flight, or null if nothing is cached */
    public AcquireFlight startAcquire() {
        return acquire.start();
    }

    /** Waits for an acquire and drops the lines others wrote; on failure drops every line. */
    public void finishAcquire(AcquireFlight f) {
        acquire.finish(f);
    }

    /**
     * {@code rmb}: queues the acquire without sending it; the next access to this cache sends
     * it (a miss in the same write as its fill) and waits for its reply ({@link CacheAcquire#defer}).
     */
    public void deferAcquire() {
        acquire.defer();
    }

    /** A new token ({@code CMI_SEG_TOKEN}): lines filled under the old one are written back and dropped. */
    public void tokenChanged() {
        acquire.settle();
        lock.lock();
        try {
            fills.stale(-1, -1, Long.MAX_VALUE); // fills in flight were sent under the old token
            drop(new ArrayList<>(order));
        } finally {
            lock.unlock();
        }
    }

    /** Hands the offsets of lines whose write-back failed to the owner (a store-failure event). */
    void reportLost(long[] offsets) {
        lostStores.accept(offsets);
    }

    /**
     * Detach: writes everything back and waits for every write-back in flight (failures of its
     * own go to {@code lostStores}), empties the cache, and, when nothing was lost, tells the home
     * to forget this cache ({@link LineTransport#forget}).
     */
    public void close() {
        acquire.settle();
        boolean clean;
        lock.lock();
        try {
            closed = true; // before the drop ends the epoch: a line installed later is never hinted
            Outcome mine = finish(release.send(dirty, 0, Integer.MAX_VALUE));
            if (mine.status() != 0) {
                lostStores.accept(mine.failedOffsets());
            }
            // Write-backs another thread or the background writer started: their starters report a failure.
            Outcome others = finish(release.all());
            clean = mine.status() == 0 && others.status() == 0;
            drop(new ArrayList<>(order)); // nothing dirty is left
            threadLines.clear();
        } finally {
            lock.unlock();
        }
        if (clean) {
            transport.forget(); // the home forgets this cache's record; not waited for
        }
    }
}
