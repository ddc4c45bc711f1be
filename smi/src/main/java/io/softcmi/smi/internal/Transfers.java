package io.softcmi.smi.internal;

import io.softcmi.smi.CheckFlag;
import io.softcmi.smi.MemcpyFlag;
import io.softcmi.smi.MemcpyHandle;
import io.softcmi.smi.SmiAddress;
import io.softcmi.smi.SmiError;
import io.softcmi.smi.SmiException;
import io.softcmi.smi.SmiRegion;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Set;

/**
 * SMI's memory movement ({@code SMI_Memcpy}, {@code SMI_Imemcpy}, {@code SMI_Memwait*},
 * {@code SMI_Memtest*}, {@code SMI_Put}, {@code SMI_Get}, {@code SMI_Check_transfer}): checks
 * the arguments, names each end of a copy and hands it to the {@link Copier}.
 */
public final class Transfers {
    private final Job job;
    private final Copier copier;

    /**
     * @param job the job (for its memory barriers)
     * @param copier the copies' engine
     */
    public Transfers(Job job, Copier copier) {
        this.job = job;
        this.copier = copier;
    }

    private static Copier.End at(SmiAddress a) {
        return new Copier.RegionEnd(a);
    }

    private static Copier.End at(MemorySegment m) {
        return new Copier.MemoryEnd(m);
    }

    /** {@code SMI_Memcpy} between region addresses: see {@link Copier#copy}. */
    public void memcpy(SmiAddress dst, SmiAddress src, long size, Set<MemcpyFlag> flags) {
        copier.copy(at(dst), at(src), size, flags);
    }

    /** {@code SMI_Memcpy} from private memory into a region: see {@link Copier#copy}. */
    public void memcpy(SmiAddress dst, MemorySegment src, long size, Set<MemcpyFlag> flags) {
        copier.copy(at(dst), at(src), size, flags);
    }

    /** {@code SMI_Memcpy} from a region into private memory: see {@link Copier#copy}. */
    public void memcpy(MemorySegment dst, SmiAddress src, long size, Set<MemcpyFlag> flags) {
        copier.copy(at(dst), at(src), size, flags);
    }

    /** {@code SMI_Imemcpy} between region addresses: see {@link Copier#post}. */
    public MemcpyHandle imemcpy(SmiAddress dst, SmiAddress src, long size, Set<MemcpyFlag> flags) {
        return copier.post(at(dst), at(src), size, flags);
    }

    /** {@code SMI_Imemcpy} from private memory into a region: see {@link Copier#post}. */
    public MemcpyHandle imemcpy(SmiAddress dst, MemorySegment src, long size, Set<MemcpyFlag> flags) {
        return copier.post(at(dst), at(src), size, flags);
    }

    /** {@code SMI_Imemcpy} from a region into private memory: see {@link Copier#post}. */
    public MemcpyHandle imemcpy(MemorySegment dst, SmiAddress src, long size, Set<MemcpyFlag> flags) {
        return copier.post(at(dst), at(src), size, flags);
    }

    /** @param h {@code SMI_Memwait}'s handle */
    public void memwait(MemcpyHandle h) {
        copier.await(h);
    }

    /**
     * {@code SMI_MemwaitAll}.
     *
     * @param hs the handles
     * @return the status of each: all {@code SUCCESS}
     * @throws SmiException {@code OTHER} if one failed (the status of each in {@link SmiException#statuses()})
     */
    public SmiError[] memwaitAll(MemcpyHandle... hs) {
        SmiError[] st = new SmiError[hs.length];
        boolean ok = true;
        for (int i = 0; i < hs.length; i++) {
            try {
                copier.await(hs[i]);
                st[i] = SmiError.SUCCESS;
            } catch (SmiException e) {
                st[i] = e.error();
                ok = false;
            }
        }
        if (!ok) {
            throw new SmiException(SmiError.OTHER, "some copies failed: " + Arrays.toString(st), Arrays.asList(st));
        }
        return st;
    }

    /**
     * {@code SMI_Memtest}.
     *
     * @param h the handle
     * @return its status
     */
    public SmiError memtest(MemcpyHandle h) {
        return copier.test(h);
    }

    /**
     * {@code SMI_MemtestAll}.
     *
     * @param hs the handles
     * @return the status of each: all {@code SUCCESS}
     * @throws SmiException {@code OTHER} unless every copy completed successfully (the status of
     *         each in {@link SmiException#statuses()}); {@code PARAM} for an illegal handle
     */
    public SmiError[] memtestAll(MemcpyHandle... hs) {
        SmiError[] st = new SmiError[hs.length];
        boolean ok = true;
        for (int i = 0; i < hs.length; i++) {
            st[i] = copier.test(hs[i]);
            ok &= st[i] == SmiError.SUCCESS;
        }
        if (!ok) {
            throw new SmiException(SmiError.OTHER, "not all copies completed successfully: " + Arrays.toString(st),
                Arrays.asList(st));
        }
        return st;
    }

    /**
     * {@code SMI_Put}.
     *
     * @param rdma the destination region
     * @param offset where, 8-aligned
     * @param src the data
     */
    public void put(SmiRegion rdma, long offset, MemorySegment src) {
        checkRdma(rdma, offset, src);
        copier.copy(at(new SmiAddress(rdma, offset)), at(src), src.byteSize(), Set.of());
    }

    /**
     * {@code SMI_Get}.
     *
     * @param dst the destination
     * @param rdma the source region
     * @param offset where, 8-aligned
     */
    public void get(MemorySegment dst, SmiRegion rdma, long offset) {
        checkRdma(rdma, offset, dst);
        copier.copy(at(dst), at(new SmiAddress(rdma, offset)), dst.byteSize(), Set.of());
        job.context().rmb();
    }

    private static void checkRdma(SmiRegion r, long offset, MemorySegment m) {
        if (r == null || m == null) {
            throw Errors.fail(SmiError.PARAM, "region and memory must not be null");
        }
        if ((offset & 7) != 0 || (m.isNative() && (m.address() & 7) != 0)) {
            throw Errors.fail(SmiError.BADADR, "offset and buffer must be 8-byte aligned");
        }
        if (offset < 0 || offset > r.size() - m.byteSize()) {
            throw Errors.fail(SmiError.PARAM, "range [" + offset + ", +" + m.byteSize() + ") is outside the region");
        }
    }

    /**
     * {@code SMI_Check_transfer}: store barrier unless {@code NOBARRIER}, load barrier unless
     * {@code NOFLUSH}; then whether a copy failed since the last check.
     *
     * @param flags flags
     */
    public void checkTransfer(Set<CheckFlag> flags) {
        if (!flags.contains(CheckFlag.NOBARRIER)) {
            job.context().wmb();
        }
        if (!flags.contains(CheckFlag.NOFLUSH)) {
            job.context().rmb();
        }
        if (copier.failedSinceLastCheck()) {
            throw Errors.fail(SmiError.TRANSFER, "a memory transfer failed since the last check");
        }
    }
}
