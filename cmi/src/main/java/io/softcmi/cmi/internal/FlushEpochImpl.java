package io.softcmi.cmi.internal;

import io.softcmi.cmi.FlushEpoch;

/**
 * A thread's flush epoch ({@code cmi_fb}). At most one per thread; it belongs to the thread
 * that opened it. Stores to local segments need no tracking (the node's hardware coherence is
 * enough, as {@code open_fb} notes), so the epoch only records which thread owns it and whether
 * it is still open.
 */
final class FlushEpochImpl implements FlushEpoch {
    final ContextImpl context;
    final Thread owner;
    boolean open = true;

    FlushEpochImpl(ContextImpl context, Thread owner) {
        this.context = context;
        this.owner = owner;
    }

    /** {@code flush_fb}. */
    @Override
    public void flush() {
        context.flushFb(this);
    }

    /** {@code close_fb}. */
    @Override
    public void close() {
        context.closeFb(this);
    }

    @Override
    public String toString() {
        return "flush epoch of " + owner.getName() + (open ? "" : " (closed)");
    }
}
