package io.softcmi.cmi.internal;

import io.softcmi.cmi.CmiAddress;
import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.FlushEpoch;
import io.softcmi.cmi.internal.cache.ContextCache;
import java.util.List;

/**
 * The memory-ordering calls of one context: {@code atm_cas}, {@code cflush}, the barriers
 * {@code mb}, {@code rmb}, {@code wmb} and the flush epochs, with the releases and acquires they
 * make of the context's cached imports (docs/cache.md). The context has checked the calling
 * thread before each call.
 */
final class MemoryOrdering {
    private final ContextImpl context;
    private final ContextCache remoteCache;

    MemoryOrdering(ContextImpl context, ContextCache remoteCache) {
        this.context = context;
        this.remoteCache = remoteCache;
    }

    /** {@code atm_cas}. */
    long atmCas(CmiMapping m, long offset, long cmpval, long swpval) {
        if (remoteCache.active()) {
            // A store barrier and an acquire for cached imports (docs/cache.md): earlier cached
            // stores reach their homes before the CAS, and later loads see what others released.
            CachedImports.release(remoteCache);
            if (m instanceof RemoteMapping rm && rm.context == context) {
                // The acquires of caches at the CAS's home go out right behind the CAS on the
                // same connection: the home serves them after it, and their round trip overlaps.
                RemoteMapping.PendingCas cas = rm.startCas(offset, cmpval, swpval);
                ContextCache.EarlyAcquire early = remoteCache.startAcquireOn(rm.home);
                long before = rm.finishCas(cas);
                remoteCache.finishAcquire(early);
                return before;
            }
            long before = atmCasNow(m, offset, cmpval, swpval);
            CachedImports.acquire(remoteCache);
            return before;
        }
        return atmCasNow(m, offset, cmpval, swpval);
    }

    private long atmCasNow(CmiMapping m, long offset, long cmpval, long swpval) {
        // One test for the common case (a writable local attach of this context, aligned word);
        // the slow path below sorts out which error applies otherwise.
        if (m instanceof LocalMapping lm && lm.casOwner == context) {
            try {
                return lm.casUnchecked(offset, cmpval, swpval);
            } catch (IllegalArgumentException misaligned) {
                throw Errors.fail(CmiError.INVAL, "atm_cas needs an 8-byte aligned address, got offset " + offset);
            }
        }
        if (m instanceof LocalMapping lm && lm.context == context) {
            return lm.cas(offset, cmpval, swpval);
        }
        if (m instanceof RemoteMapping rm && rm.context == context) {
            return rm.cas(offset, cmpval, swpval);
        }
        throw Errors.fail(CmiError.INVAL, "not a mapping of this context: " + m);
    }

    /** {@code cflush}. */
    void cflush(List<CmiAddress> addresses) {
        for (CmiAddress a : Errors.checkNotNull(addresses, "addresses")) {
            boolean ours = a != null && (a.mapping() instanceof LocalMapping m && m.context == context && m.attached()
                || a.mapping() instanceof RemoteMapping r && r.context == context && r.attached());
            if (!ours || a.offset() < 0 || a.offset() >= a.mapping().size()) {
                throw Errors.fail(CmiError.INVAL, "not an address in an attached segment of this context: " + a);
            }
        }
        // Local segments are coherent through the mapping and write-through stores are complete
        // at the home when they return: a fence commits those; cached lines are written back.
        java.lang.invoke.VarHandle.fullFence();
        for (CmiAddress a : addresses) {
            if (a.mapping() instanceof RemoteMapping r) {
                r.cflush(a.offset());
            }
        }
    }

    /** {@code mb}. */
    void mb() {
        java.lang.invoke.VarHandle.fullFence();
        CachedImports.release(remoteCache);
        CachedImports.acquire(remoteCache);
    }

    /** {@code rmb}. */
    void rmb() {
        java.lang.invoke.VarHandle.acquireFence();
        CachedImports.acquireDeferred(remoteCache);
    }

    /** {@code wmb}. */
    void wmb() {
        java.lang.invoke.VarHandle.releaseFence();
        CachedImports.release(remoteCache);
    }

    /** {@code open_fb}. */
    FlushEpoch openFb(ThreadState ts) {
        if (ts.epoch != null) {
            throw Errors.fail(CmiError.BOUND, "calling thread already has a flush epoch open");
        }
        ts.epoch = new FlushEpochImpl(context, Thread.currentThread());
        return ts.epoch;
    }

    private FlushEpochImpl ownEpoch(ThreadState ts, FlushEpoch epoch, String call) {
        if (!(epoch instanceof FlushEpochImpl e) || e.context != context || !e.open || e != ts.epoch) {
            throw Errors.fail(CmiError.INVAL, "not the calling thread's open flush epoch (" + call + ")");
        }
        return e;
    }

    /** {@code flush_fb}. */
    void flushFb(ThreadState ts, FlushEpoch epoch) {
        ownEpoch(ts, epoch, "flush_fb");
        java.lang.invoke.VarHandle.fullFence();
        CachedImports.releaseThread(remoteCache);
    }

    /** {@code close_fb}. */
    void closeFb(ThreadState ts, FlushEpoch epoch) {
        FlushEpochImpl e = ownEpoch(ts, epoch, "close_fb");
        java.lang.invoke.VarHandle.fullFence();
        try {
            CachedImports.releaseThread(remoteCache);
        } finally {
            e.open = false; // closed also when its write-back failed (STORE): the thread may open another
            ts.epoch = null;
        }
    }
}
