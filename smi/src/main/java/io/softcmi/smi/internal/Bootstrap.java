package io.softcmi.smi.internal;

import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.smi.SmiError;

/**
 * The job's bootstrap segment, as its maker holds it: {@code smirun} makes it on the node of rank 0
 * (a process started without {@code smirun} makes its own) and passes its descriptor to every rank
 * in {@code SMI_BOOTSTRAP}. The ranks publish their control segments in it, count barriers in it
 * and post an {@code SMI_Abort} there. See {@link Layout} for its layout.
 */
public final class Bootstrap implements AutoCloseable {
    private final Segments segments;
    private final Segments.Own own;
    private final int size;

    private Bootstrap(Segments segments, Segments.Own own, int size) {
        this.segments = segments;
        this.own = own;
        this.size = size;
    }

    /**
     * Makes the bootstrap segment of a job.
     *
     * @param ctx the maker's context (kept open for the job's life: the segment lives with it)
     * @param size the number of processes
     * @return the segment
     */
    public static Bootstrap create(CmiContext ctx, int size) {
        if (size < 1 || size > Layout.MAX_PROCS) {
            throw Errors.fail(SmiError.PARAM, "number of processes " + size + " not in 1.." + Layout.MAX_PROCS);
        }
        Segments s = new Segments(ctx, false);
        Segments.Own o = s.createSynchronization(Layout.bootstrapSize(size));
        o.map().putLong(Layout.BOOT_SIZE, size);
        o.map().putLong(Layout.BOOT_MAGIC, Layout.BOOT_MAGIC_VALUE);
        ctx.wmb();
        return new Bootstrap(s, o, size);
    }

    /** @return the value of {@code SMI_BOOTSTRAP} for the ranks */
    public String envValue() {
        return JobEnv.encode(own.ref());
    }

    CmiMapping mapping() {
        return own.map();
    }

    SegmentRef ref() {
        return own.ref();
    }

    /** @return the number of processes */
    public int size() {
        return size;
    }

    /**
     * The code of the first {@code SMI_Abort}, if any.
     *
     * @return the exit code, or -1 if no process aborted
     */
    public int abortCode() {
        segments.context().rmb();
        long v = own.map().getLong(Layout.BOOT_ABORT);
        return v == 0 ? -1 : (int) (v & 0xff);
    }

    /** @return how many processes have joined (published their control segment) */
    public int joined() {
        segments.context().rmb();
        return (int) own.map().getLong(Layout.BOOT_JOINED);
    }

    /** Releases the segment (the processes' imports of it fail afterwards). */
    @Override
    public void close() {
        segments.destroy(own);
    }
}
