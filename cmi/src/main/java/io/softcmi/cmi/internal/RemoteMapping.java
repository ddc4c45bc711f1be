package io.softcmi.cmi.internal;

import io.softcmi.cmi.CmiAccessError;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.internal.cache.ContextCache;
import io.softcmi.cmi.internal.cache.LineFault;
import io.softcmi.cmi.internal.cache.LineHint;
import io.softcmi.cmi.internal.cache.SegmentCache;
import io.softcmi.wire.DataProtocol;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Objects;

/**
 * An attach of an imported (proxy) segment: the whole size is addressable. A write-through
 * import sends every load, store, bulk copy and CAS to the home node over a
 * {@link RemoteConnection}, checked there against the token; a cached import (the default)
 * loads and stores through its {@link SegmentCache} (docs/cache.md), and only misses,
 * write-backs at release points and acquires go to the home. CAS always goes to the home.
 * Every remote call has a deadline: the context's reconfiguration timeout
 * ({@code CMI_CTL_RECONF_TOUT}); a home that does not answer by then gives TRANSIENT.
 *
 * <p>Local checks first, in the order a user meets them: detached ({@link IllegalStateException}),
 * out of range ({@link IndexOutOfBoundsException}), store through a READ attach (PERM), thread
 * not enabled ({@code cmi_enb}: ENABLE), no token set (TOKEN); then the home's verdict.
 */
final class RemoteMapping implements CmiMapping {
    final ContextImpl context;
    final SegmentImpl segment;
    final long attachId;
    final NodeAddressImpl home;
    final long homeSegmentId;
    final boolean readOnly;
    private final long size;
    private volatile TokenImpl token;
    private volatile boolean attached = true;
    /** The line cache, or null for a write-through (or uncacheable) import. */
    final SegmentCache cache;

    RemoteMapping(ContextImpl context, SegmentImpl segment, long attachId, NodeAddressImpl home, long homeSegmentId,
            long size, boolean readOnly, TokenImpl token, long cacheBytes) {
        this.context = context;
        this.segment = segment;
        this.attachId = attachId;
        this.home = home;
        this.homeSegmentId = homeSegmentId;
        this.size = size;
        this.readOnly = readOnly;
        this.token = token;
        if (cacheBytes >= 0 && SegmentCache.cacheable(size, CachedImports.LINE_SIZE)) {
            cache = new SegmentCache(size, CachedImports.LINE_SIZE, cacheBytes,
                new RemoteLineTransport(this, ContextCache.newCacheId()), context.remoteCache().stats(),
                offsets -> context.storesLost(segment, offsets));
            context.remoteCache().add(cache);
        } else {
            cache = null;
        }
    }

    TokenImpl token() {
        return token;
    }

    void setToken(TokenImpl t) {
        token = t;
        if (cache != null) {
            cache.tokenChanged(); // drops every line, which invalidates the hints
        }
    }

    void detach() {
        attached = false;
        if (cache != null) {
            context.remoteCache().remove(cache); // drops every line: a hint would skip the detached check
        }
    }

    boolean attached() {
        return attached;
    }

    @Override public CmiSegment segment() { return segment; }
    @Override public long size() { return size; }
    @Override public boolean readOnly() { return readOnly; }

    private TokenImpl check(long off, long len, boolean write) {
        if (!attached) {
            throw new IllegalStateException("segment " + segment.id() + " is detached");
        }
        Objects.checkFromIndexSize(off, len, size);
        if (write && readOnly) {
            throw Errors.access(CmiAccessError.PERM, segment.id(), off);
        }
        if (!threadState().enabled) {
            throw Errors.access(CmiAccessError.ENABLE, segment.id(), off);
        }
        TokenImpl t = token;
        if (t == null) {
            throw Errors.access(CmiAccessError.TOKEN, segment.id(), off);
        }
        return t;
    }

    /** The last thread that accessed this mapping and its state (immutable, so safely shared). */
    private record SeenThread(Thread thread, ThreadState state) {
    }

    private SeenThread seen;

    /**
     * The calling thread's state without a ThreadLocal lookup when it was the last to access
     * this mapping (the hot path of cached loads); {@code enabled} is only written by its owner.
     */
    private ThreadState threadState() {
        Thread t = Thread.currentThread();
        SeenThread s = seen;
        if (s != null && s.thread == t) {
            return s.state;
        }
        ThreadState ts = ThreadState.current();
        seen = new SeenThread(t, ts);
        return ts;
    }

    /** Points the calling thread's hint at the line of {@code off}, after an access passed every check. */
    private void aimHint(SegmentCache sc, long off) {
        Thread me = Thread.currentThread();
        LineHint h = hint;
        if (h.owner() != me) {
            h = new LineHint(me);
            hint = h;
        }
        sc.aim(h, off);
    }

    /** The calling thread turned remote access off: its hint must not serve another load. */
    void forgetEnabled(Thread me) {
        LineHint h = hint;
        if (h.owner() == me) {
            h.clear();
        }
    }

    private void verdict(int status, long off) {
        if (status != 0) {
            CmiAccessError e = AccessStatus.fromWire(status);
            if (e == CmiAccessError.TRANSIENT && context.homeIsDown(segment.id())) {
                e = CmiAccessError.SINVAL; // the call broke because the node declared the home dead
            }
            throw Errors.access(e, segment.id(), off);
        }
    }

    /** A cache miss failed: the home's verdict, except where the exact access may still pass (then false). */
    private boolean missFailed(LineFault f, long off) {
        if (f.status == DataProtocol.STATUS_PERM || f.status == DataProtocol.STATUS_SEG_BRK) {
            return false; // the whole line is outside the token's range or the break: the access itself decides
        }
        verdict(f.status, off);
        return true;
    }

    private RemoteConnection connection(long off) {
        return context.connection(home, segment.id(), off);
    }

    /**
     * The last thread's line hint (docs/cache.md, "Hits"): a load by that thread that falls in
     * the line it read last, still cached, reads it after one volatile read and a bounds check.
     * The hint is made only after every check of {@link #check} passed. It is invalid from the
     * moment any line leaves the cache or an acquire is deferred ({@code HintEpoch}), which
     * every detach and token change does too, and its owner forgets it when it turns remote
     * access off ({@link #forgetEnabled}: {@code cmi_enb(0)}, {@code fini}).
     */
    private LineHint hint = LineHint.NONE;

    private long load(long off, int width) {
        LineHint h = hint;
        if (h.owner() == Thread.currentThread() && h.covers(off, width)) {
            return h.get(off, width);
        }
        try {
            return (long) missPath.invokeExact(this, off, width);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t); // loadMissingHint declares no checked exception
        }
    }

    /** {@link #loadMissingHint}, as a handle (see {@link #missPath}). */
    private static final MethodHandle MISS_PATH;
    static {
        try {
            MISS_PATH = MethodHandles.lookup().findVirtual(RemoteMapping.class, "loadMissingHint",
                MethodType.methodType(long.class, long.class, int.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * The load's slow path, called through a handle the JIT cannot see through (an instance
     * field is not a constant to it), so that it is never inlined into {@link #load} (docs/cache.md,
     * "Hits"). Inlined, the miss path made the compiled {@code load} (or {@code getLong}) larger
     * than the JIT inlines ({@code InlineSmallCode}) whenever it was compiled on its own, after
     * many misses: then every caller's loop called it instead of inlining the hit, 3 to 6 ns per
     * {@code getLong} instead of 1.5.
     */
    private final MethodHandle missPath = MISS_PATH;

    private long loadMissingHint(long off, int width) {
        TokenImpl t = check(off, width, false);
        SegmentCache sc = cache;
        if (sc != null) {
            try {
                long v = sc.load(off, width);
                aimHint(sc, off);
                return v;
            } catch (LineFault f) {
                missFailed(f, off);
            }
        }
        RemoteCall c = connection(off).load(homeSegmentId, t, off, width, context.remoteDeadline());
        verdict(c.status, off);
        return c.value;
    }

    private void store(long off, int width, long bits) {
        TokenImpl t = check(off, width, true);
        SegmentCache sc = cache;
        if (sc != null) {
            try {
                sc.store(off, width, bits, threadState().epoch != null);
                return;
            } catch (LineFault f) {
                missFailed(f, off);
            }
        }
        verdict(connection(off).store(homeSegmentId, t, off, width, bits, context.remoteDeadline()), off);
    }

    @Override public byte getByte(long off) { return (byte) load(off, 1); }
    @Override public void putByte(long off, byte v) { store(off, 1, v); }
    @Override public short getShort(long off) { return (short) load(off, 2); }
    @Override public void putShort(long off, short v) { store(off, 2, v); }
    @Override public int getInt(long off) { return (int) load(off, 4); }
    @Override public void putInt(long off, int v) { store(off, 4, v); }
    @Override public long getLong(long off) { return load(off, 8); }
    @Override public void putLong(long off, long v) { store(off, 8, v); }
    @Override public float getFloat(long off) { return Float.intBitsToFloat((int) load(off, 4)); }
    @Override public void putFloat(long off, float v) { store(off, 4, Float.floatToRawIntBits(v)); }
    @Override public double getDouble(long off) { return Double.longBitsToDouble(load(off, 8)); }
    @Override public void putDouble(long off, double v) { store(off, 8, Double.doubleToRawLongBits(v)); }

    @Override
    public void get(long off, byte[] dst, int dstOff, int len) {
        Objects.checkFromIndexSize(dstOff, len, dst.length);
        get(off, MemorySegment.ofArray(dst).asSlice(dstOff, len));
    }

    @Override
    public void put(long off, byte[] src, int srcOff, int len) {
        Objects.checkFromIndexSize(srcOff, len, src.length);
        put(off, MemorySegment.ofArray(src).asSlice(srcOff, len));
    }

    @Override
    public void get(long off, MemorySegment dst) {
        TokenImpl t = check(off, dst.byteSize(), false);
        SegmentCache sc = cache;
        if (sc != null) {
            try {
                sc.read(off, dst);
                return;
            } catch (LineFault f) {
                missFailed(f, off);
            }
        }
        verdict(connection(off).get(homeSegmentId, t, off, dst, dst.byteSize(), context.remoteDeadline()), off);
    }

    @Override
    public void put(long off, MemorySegment src) {
        TokenImpl t = check(off, src.byteSize(), true);
        SegmentCache sc = cache;
        if (sc != null) {
            try {
                sc.write(off, src, threadState().epoch != null);
                return;
            } catch (LineFault f) {
                missFailed(f, off);
            }
        }
        verdict(connection(off).put(homeSegmentId, t, off, src, src.byteSize(), context.remoteDeadline()), off);
    }

    /**
     * Notification extension: the home checks it like an 8-byte store at {@code off} and hands
     * it to the segment's creator. It is a release: the context's cached stores are written back
     * first, and requests of one connection are served in order, so the creator sees them before
     * the notification.
     */
    void sendNotification(long off, long value) {
        TokenImpl t = check(off, 8, true);
        CachedImports.release(context.remoteCache());
        verdict(connection(off).notification(homeSegmentId, t, off, value, context.remoteDeadline()), off);
    }

    /**
     * Notification extension: {@link #put} then {@link #sendNotification}, in one round trip on
     * an uncached import ({@link RemoteConnection#putThenNotify}); a cached import stores into its
     * cache and then sends the notification as a release, as the two calls would.
     */
    void putThenNotify(long off, MemorySegment src, long notifyOffset, long value) {
        putThenNotify(off, src, notifyOffset, value, -1);
    }

    /**
     * As {@link #putThenNotify(long, MemorySegment, long, long)}; with {@code waitersOffset >= 0}
     * the notification is sent only if the word there is not zero after the store (read at the
     * home, after a full fence, in the same round trip on an uncached import).
     */
    void putThenNotify(long off, MemorySegment src, long notifyOffset, long value, long waitersOffset) {
        if (waitersOffset >= 0) {
            check(waitersOffset, 8, false);
        }
        RemoteConnection c = null;
        TokenImpl t = null;
        if (cache == null) {
            t = check(off, src.byteSize(), true);
            check(notifyOffset, 8, true);
            c = connection(off);
            if (c != connection(notifyOffset) || waitersOffset >= 0 && c != connection(waitersOffset)) {
                c = null;
            }
        }
        if (c == null) {
            put(off, src);
            if (waitersOffset >= 0) {
                if (cache != null) {
                    context.mb(); // the store reaches the home and the waiters word is read fresh
                } else {
                    java.lang.invoke.VarHandle.fullFence();
                }
                if (getLong(waitersOffset) == 0) {
                    return;
                }
            }
            sendNotification(notifyOffset, value);
            return;
        }
        int status = c.putThenNotify(homeSegmentId, t, off, src, notifyOffset, value, waitersOffset, context.remoteDeadline());
        verdict(status, off);
    }

    /**
     * {@link #putThenNotify} without waiting for the replies, on an uncached import whose store
     * and notification go to one home connection: one request pair, or for a store larger than
     * one request its chunks and the notification (see {@code Notifications.putAndNotifyPipelined}).
     *
     * @return the pending outcome, or null if this mapping cannot pipeline it (the caller then
     *         makes the synchronous call)
     */
    io.softcmi.cmi.notify.PendingPut startPutThenNotify(long off, MemorySegment src, long notifyOffset, long value) {
        long length = src.byteSize();
        if (cache != null || length == 0) {
            return null;
        }
        TokenImpl t = check(off, length, true);
        check(notifyOffset, 8, true);
        RemoteConnection c = connection(off);
        if (c != connection(notifyOffset) || c != connection(off + length - 1)) {
            return null;
        }
        return pending(c, c.startPutThenNotify(homeSegmentId, t, off, src, notifyOffset, value, -1,
            context.remoteDeadline()), off, true);
    }

    /**
     * A store without waiting for the home's replies, on an uncached import whose store goes to
     * one home connection (see {@code Notifications.putPipelined}).
     *
     * @return the pending outcome, or null if this mapping cannot pipeline it (the caller then
     *         stores synchronously)
     */
    io.softcmi.cmi.notify.PendingPut startPut(long off, MemorySegment src) {
        long length = src.byteSize();
        if (cache != null || length == 0) {
            return null;
        }
        TokenImpl t = check(off, length, true);
        RemoteConnection c = connection(off);
        if (c != connection(off + length - 1)) {
            return null;
        }
        return pending(c, c.startPut(homeSegmentId, t, off, src, context.remoteDeadline()), off, false);
    }

    /**
     * The outcome of pipelined calls, awaited with {@link RemoteConnection#finishPutThenNotify};
     * {@code notified}: the last call is a notification (whose reply carries the creator's backlog).
     * Several threads may await it at once: each joins the calls ({@link RemoteCall#join}), and
     * a call's status does not change once it is done, so each gets the same verdict.
     */
    private io.softcmi.cmi.notify.PendingPut pending(RemoteConnection c, RemoteCall[] calls, long off,
            boolean notified) {
        return new io.softcmi.cmi.notify.PendingPut() {
            @Override
            public boolean done() {
                for (RemoteCall k : calls) {
                    if (!k.done) {
                        return false;
                    }
                }
                return true;
            }

            @Override
            public void await() {
                verdict(c.finishPutThenNotify(calls, context.remoteDeadline()), off);
            }

            @Override
            public long creatorBacklog() {
                RemoteCall notice = calls[calls.length - 1];
                return notified && notice.done ? Math.max(0, notice.value) : 0;
            }
        };
    }

    /** {@code cflush} of the line holding {@code off}: writes it back if dirty. @throws io.softcmi.cmi.CmiException STORE */
    void cflush(long off) {
        if (cache != null) {
            try {
                java.util.List<SegmentCache.Flight> f = cache.startReleaseRange(off, 1);
                SegmentCache.Outcome o = SegmentCache.finish(f);
                if (o.status() != 0) {
                    throw CachedImports.storeError(new LineFault(o.status(), off, true));
                }
            } catch (LineFault f) {
                throw CachedImports.storeError(f);
            }
        }
    }

    /** {@code atm_cas} at the home (the caller makes it a release and an acquire for cached imports). */
    long cas(long off, long cmpval, long swpval) {
        if ((off & 7) != 0) {
            throw Errors.fail(io.softcmi.cmi.CmiError.INVAL, "atm_cas needs an 8-byte aligned address, got offset " + off);
        }
        TokenImpl t = check(off, 8, true);
        RemoteCall c = connection(off).cas(homeSegmentId, t, off, cmpval, swpval, context.remoteDeadline());
        verdict(c.status, off);
        return c.value;
    }

    /** A CAS sent and not yet awaited ({@link #startCas}). */
    record PendingCas(RemoteConnection connection, RemoteCall call, long offset, long deadline) {
    }

    /**
     * {@code atm_cas} at the home, first part: checks and sends the request without waiting, so
     * the caller can send requests that the home must serve after it on the same connection.
     */
    PendingCas startCas(long off, long cmpval, long swpval) {
        if ((off & 7) != 0) {
            throw Errors.fail(io.softcmi.cmi.CmiError.INVAL, "atm_cas needs an 8-byte aligned address, got offset " + off);
        }
        TokenImpl t = check(off, 8, true);
        long deadline = context.remoteDeadline();
        RemoteConnection c = connection(off);
        return new PendingCas(c, c.startCas(homeSegmentId, t, off, cmpval, swpval, deadline), off, deadline);
    }

    /** {@code atm_cas}, second part: waits for the reply. @return the value before */
    long finishCas(PendingCas p) {
        p.connection().await(p.call(), p.deadline());
        verdict(p.call().status, p.offset());
        return p.call().value;
    }

    @Override
    public String toString() {
        return "remote mapping of " + segment + " homed at " + home + (readOnly ? " (read-only)" : "");
    }
}
