package io.softcmi.smi.internal;

import io.softcmi.cmi.CmiAccessException;
import io.softcmi.cmi.CmiException;
import io.softcmi.smi.MemcpyFlag;
import io.softcmi.smi.MemcpyHandle;
import io.softcmi.smi.SmiAddress;
import io.softcmi.smi.SmiError;
import io.softcmi.smi.SmiException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code SMI_Memcpy}, {@code SMI_Imemcpy}, {@code SMI_Memwait(All)}, {@code SMI_Memtest(All)},
 * {@code SMI_Check_transfer}. An end of a copy is a region address or private memory (a
 * {@link MemorySegment}). Asynchronous copies run in order on one copy thread of their own (a
 * CMI thread of the process's context), so they overlap with the caller's computation; a remote
 * part is moved in bulk by the CMI data path.
 */
public final class Copier implements AutoCloseable {
    private static final long CHUNK = 1 << 20;

    private final Job job;
    private final ExecutorService thread;
    private final List<Op> queued = new ArrayList<>();
    /** Set by a copy that failed (the copy thread or the caller), cleared by the check. */
    private final AtomicBoolean transferFailed = new AtomicBoolean();

    /** @param job the job */
    public Copier(Job job) {
        this.job = job;
        this.thread = Executors.newSingleThreadExecutor(r -> Thread.ofPlatform().daemon().name("smi-imemcpy").unstarted(() -> {
            job.context().iniTh();
            try {
                job.context().enable(true);
                r.run();
            } finally {
                job.context().fini();
            }
        }));
    }

    /** An end of a copy: a region address or private memory. */
    public sealed interface End permits RegionEnd, MemoryEnd {
    }

    /** @param a the address */
    public record RegionEnd(SmiAddress a) implements End {
    }

    /** @param m the memory */
    public record MemoryEnd(MemorySegment m) implements End {
    }

    private static final class Op implements MemcpyHandle {
        final long size;
        final Runnable work;
        /** Whether the destination is a region (else private memory). */
        final boolean toRegion;
        CompletableFuture<Void> done;

        Op(long size, Runnable work, boolean toRegion) {
            this.size = size;
            this.work = work;
            this.toRegion = toRegion;
        }

        @Override
        public long size() {
            return size;
        }
    }

    private static void check(End e, long size, String what) {
        if (size < 0) {
            throw Errors.fail(SmiError.PARAM, "negative size " + size);
        }
        switch (e) {
            case RegionEnd r -> {
                if (r.a() == null || r.a().region() == null) {
                    throw Errors.fail(SmiError.PARAM, what + " address is null");
                }
                if (r.a().offset() < 0 || r.a().offset() > r.a().region().size() - size) {
                    throw Errors.fail(SmiError.BADADR, what + " range [" + r.a().offset() + ", +" + size
                        + ") is outside its region");
                }
            }
            case MemoryEnd m -> {
                if (m.m() == null || m.m().byteSize() < size) {
                    throw Errors.fail(SmiError.BADADR, what + " memory is null or shorter than " + size + " bytes");
                }
            }
        }
    }

    private void move(End dst, End src, long size) {
        try {
            if (src instanceof MemoryEnd(MemorySegment s)) {
                if (dst instanceof MemoryEnd(MemorySegment d)) {
                    MemorySegment.copy(s, 0, d, 0, size);
                } else {
                    SmiAddress d = ((RegionEnd) dst).a();
                    d.region().put(d.offset(), s.asSlice(0, size));
                }
                return;
            }
            SmiAddress s = ((RegionEnd) src).a();
            if (dst instanceof MemoryEnd(MemorySegment d)) {
                s.region().get(s.offset(), d.asSlice(0, size));
                return;
            }
            SmiAddress d = ((RegionEnd) dst).a();
            MemorySegment buf = MemorySegment.ofArray(new byte[(int) Math.min(size, CHUNK)]);
            for (long done = 0; done < size; done += CHUNK) {
                long n = Math.min(CHUNK, size - done);
                MemorySegment b = buf.asSlice(0, n);
                s.region().get(s.offset() + done, b);
                d.region().put(d.offset() + done, b);
            }
        } catch (CmiAccessException | CmiException e) {
            transferFailed.set(true);
            throw new SmiException(SmiError.TRANSFER, "copy of " + size + " bytes failed: " + e.getMessage(), e);
        }
    }

    private void barrierAfter(Set<MemcpyFlag> flags) {
        if (!flags.contains(MemcpyFlag.NOBARRIER) && !flags.contains(MemcpyFlag.FAST)) {
            job.context().wmb();
        }
    }

    /**
     * {@code SMI_Memcpy}.
     *
     * @param dst destination
     * @param src source
     * @param size bytes
     * @param flags flags
     */
    public void copy(End dst, End src, long size, Set<MemcpyFlag> flags) {
        check(dst, size, "destination");
        check(src, size, "source");
        if (flags.contains(MemcpyFlag.ENQUEUE)) {
            throw Errors.fail(SmiError.PARAM, "SMI_MEMCPY_ENQUEUE is for SMI_Imemcpy");
        }
        move(dst, src, size);
        barrierAfter(flags);
    }

    /**
     * {@code SMI_Imemcpy}.
     *
     * @param dst destination
     * @param src source
     * @param size bytes
     * @param flags flags; {@code ENQUEUE} queues it until the next posting or wait
     * @return the handle
     */
    public MemcpyHandle post(End dst, End src, long size, Set<MemcpyFlag> flags) {
        check(dst, size, "destination");
        check(src, size, "source");
        Set<MemcpyFlag> f = Set.copyOf(flags);
        Op op = new Op(size, () -> {
            move(dst, src, size);
            barrierAfter(f);
        }, endsWithLoadBarrier(dst));
        synchronized (queued) {
            queued.add(op);
            if (!f.contains(MemcpyFlag.ENQUEUE)) {
                startQueued();
            }
        }
        return op;
    }

    private void startQueued() {
        for (Op o : queued) {
            o.done = CompletableFuture.runAsync(o.work, thread);
        }
        queued.clear();
    }

    /**
     * Whether {@code SMI_Memwait} of a copy to {@code dst} ends with a load barrier ({@code rmb}):
     * only for a region. A copy into private memory is published to the waiting thread by the
     * copy's completion; an {@code rmb} would cost a round trip to every home of the context's
     * cached imports.
     *
     * @param dst the copy's destination
     * @return true for a region address
     */
    static boolean endsWithLoadBarrier(End dst) {
        return dst instanceof RegionEnd;
    }

    private Op op(MemcpyHandle h) {
        if (!(h instanceof Op o)) {
            throw Errors.fail(SmiError.PARAM, "not a memcpy handle: " + h);
        }
        return o;
    }

    /**
     * {@code SMI_Memwait}: starts queued copies, then waits for this one. A copy into a region
     * ends with a load barrier ({@code rmb}); one into private memory does not: the copy thread
     * wrote plain memory, which the completed future publishes to this thread, and an
     * {@code rmb} would cost a round trip to every home of the context's cached imports (one
     * per halo row in {@code Poisson}).
     *
     * @param h the handle
     */
    public void await(MemcpyHandle h) {
        Op o = op(h);
        synchronized (queued) {
            if (o.done == null) {
                startQueued();
            }
        }
        try {
            o.done.get();
            if (o.toRegion) {
                job.context().rmb();
            }
        } catch (ExecutionException e) {
            throw e.getCause() instanceof SmiException s ? s
                : new SmiException(SmiError.TRANSFER, "copy failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw Errors.fail(SmiError.OTHER, "interrupted in SMI_Memwait");
        }
    }

    /**
     * {@code SMI_Memtest}.
     *
     * @param h the handle
     * @return {@code SUCCESS}, {@code PENDING}, {@code NOTPOSTED} or {@code TRANSFER}
     */
    public SmiError test(MemcpyHandle h) {
        Op o = op(h);
        synchronized (queued) {
            if (o.done == null) {
                return SmiError.NOTPOSTED;
            }
        }
        if (!o.done.isDone()) {
            return SmiError.PENDING;
        }
        return o.done.isCompletedExceptionally() ? SmiError.TRANSFER : SmiError.SUCCESS;
    }

    /**
     * {@code SMI_Check_transfer}: whether a copy failed since the last check.
     *
     * @return true if one did (cleared by the call)
     */
    public boolean failedSinceLastCheck() {
        // One atomic step: a failure set between a read and a separate clear was lost.
        return transferFailed.getAndSet(false);
    }

    @Override
    public void close() {
        thread.shutdown();
        try {
            thread.awaitTermination(30, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
