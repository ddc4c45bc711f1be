package io.softcmi.cmi.internal.cache;

/**
 * A stretch of one {@link SegmentCache}'s life in which no line left its table and no deferred
 * acquire ({@code rmb}) was pending (docs/cache.md, "Hits"). A {@link LineHint} records the
 * epoch current when it was aimed, and serves loads only while that epoch is: the cache ends it
 * (one volatile write) when a line is dropped (an acquire's invalidation, an eviction, a new
 * token, a detach) or an acquire is deferred, so a hit checks one flag instead of the line's
 * state and the cache's.
 */
final class HintEpoch {
    /** An epoch that is over from the start: a hint that points nowhere holds it. */
    static final HintEpoch ENDED = new HintEpoch(false);

    /** Cleared once, by the one thread that replaced this epoch as its cache's current one. */
    volatile boolean current;

    HintEpoch(boolean current) {
        this.current = current;
    }
}
