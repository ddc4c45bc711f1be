package io.softcmi.cmi.internal;

import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiException;
import io.softcmi.cmi.internal.cache.ContextCache;
import io.softcmi.cmi.internal.cache.LineFault;
import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.MessageType;

/**
 * The barriers' work on a context's cached imports ({@code docs/cache.md}), and the knobs:
 * {@code softcmi.cache.lineSize} (bytes, a power of two; the {@code cache_line_sz} of cached
 * imports) and {@code softcmi.cache.off} (every import synchronous, as write-through ones).
 */
final class CachedImports {
    /** Line size of cached imports. */
    static final int LINE_SIZE = Integer.getInteger("softcmi.cache.lineSize", 1024);
    /** Whether imports without WRITE_THROUGH are cached. */
    static final boolean ENABLED = !Boolean.getBoolean("softcmi.cache.off");

    private CachedImports() {
    }

    /** A release over every cached import ({@code wmb}, {@code mb}, {@code atm_cas}). @throws CmiException STORE */
    static void release(ContextCache c) {
        if (c.active()) {
            try {
                c.releaseAll();
            } catch (LineFault f) {
                throw storeError(f);
            }
        }
    }

    /** {@code flush_fb}/{@code close_fb}: a release of the calling thread's stores. @throws CmiException STORE */
    static void releaseThread(ContextCache c) {
        if (c.active()) {
            try {
                c.releaseThread(Thread.currentThread());
            } catch (LineFault f) {
                throw storeError(f);
            }
        }
    }

    /** {@code rmb}: an acquire over every cached import, each settled at the import's next access. */
    static void acquireDeferred(ContextCache c) {
        if (c.active()) {
            c.deferAcquireAll();
        }
    }

    /** An acquire over every cached import ({@code mb}, {@code atm_cas}). */
    static void acquire(ContextCache c) {
        if (c.active()) {
            c.acquireAll();
        }
    }

    /**
     * Whether a notice is a node's refusal of {@link ControlMessage.CacheReport}: a node older
     * than that message answers the unknown one-way frame with an error of correlation id 0
     * (notices carry 0, so the error arrives as one), and the context stops sending figures.
     *
     * @param e an error that came with correlation id 0
     * @return whether it names the cache report's type as unknown
     */
    static boolean refusesCacheReports(ControlMessage.ErrorReply e) {
        return e.message().endsWith("unknown message type " + MessageType.CACHE_REPORT.id());
    }

    /** @return the {@code CMI_ERR_STORE} a failed synchronous write-back raises */
    static CmiException storeError(LineFault f) {
        return Errors.fail(CmiError.STORE, "stores could not be written back to the home node (status " + f.status
            + ", line at offset " + f.offset + ")");
    }
}
