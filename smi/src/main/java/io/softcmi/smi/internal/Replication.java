package io.softcmi.smi.internal;

import io.softcmi.smi.SmiError;
import io.softcmi.smi.SmiMutex;
import io.softcmi.smi.SmiRegion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@code SMI_Switch_to_replication}, {@code SMI_Switch_to_sharing}, {@code SMI_Ensure_consistency}
 * (manual §11). While a region is replicated, every access through it goes to a private copy of
 * this process ({@link RegionImpl#replica()}); switching back combines the copies into the shared
 * segments as the combine mode says. All three are collective.
 */
public final class Replication {
    /** {@code SMI_REP_EVERYTHING}: copy the whole region. */
    public static final int REP_EVERYTHING = 0;
    /** {@code SMI_REP_NOTHING}: copy nothing (the copy starts zeroed). */
    public static final int REP_NOTHING = 1;
    /** {@code SMI_REP_LOCAL_AND_BEYOND}: copy this process's share of a flat array, plus neighbours. */
    public static final int REP_LOCAL_AND_BEYOND = 2;
    /** {@code SMI_REP_ONE_PER_NODE}: accepted; each process still gets its own copy. */
    public static final int REP_ONE_PER_NODE = 0x100;
    /** {@code SMI_SHR_NOTHING}: the shared contents stay as they are. */
    public static final int SHR_NOTHING = 0;
    /** {@code SMI_SHR_SINGLE_SOURCE}: the copy of process {@code p1} becomes the shared contents. */
    public static final int SHR_SINGLE_SOURCE = 1;
    /** {@code SMI_SHR_LOOP_SPLITTING}: obsolete in the manual; refused with {@code PARAM}. */
    public static final int SHR_LOOP_SPLITTING = 2;
    /** {@code SMI_SHR_EVERY_LOCAL}: each process writes back the segments it owns. */
    public static final int SHR_EVERY_LOCAL = 3;
    /** {@code SMI_SHR_ADD}: sum {@code p1} elements at the start of the copies (or with a {@code DTYPE}). */
    public static final int SHR_ADD = 0x10;
    /** {@code SMI_DTYPE_FIXPOINT}: {@code int} elements ({@code long} with {@code HIGHPRECISION}). */
    public static final int DTYPE_FIXPOINT = 0x100;
    /** {@code SMI_DTYPE_FLOATINGPOINT}: {@code float} elements ({@code double} with {@code HIGHPRECISION}). */
    public static final int DTYPE_FLOATINGPOINT = 0x200;
    /** {@code SMI_DTYPE_HIGHPRECISION}. */
    public static final int DTYPE_HIGHPRECISION = 0x400;
    /** {@code SMI_SHR_SPARSE}: accepted (no special handling). */
    public static final int SHR_SPARSE = 0x1000;

    private final Job job;
    private final Loops loops;
    private SmiMutex addLock;

    /**
     * @param job the job
     * @param loops the job's scheduled loops ({@code LOCAL_AND_BEYOND} follows a loop's shares)
     */
    public Replication(Job job, Loops loops) {
        this.job = job;
        this.loops = loops;
    }

    private static RegionImpl impl(SmiRegion r) {
        if (!(r instanceof RegionImpl ri) || ri.freed()) {
            throw Errors.fail(SmiError.PARAM, "not a live shared region: " + r);
        }
        return ri;
    }

    /**
     * {@code SMI_Switch_to_replication}.
     *
     * @param region the region
     * @param mode a {@code REP_*} mode, optionally or'ed with {@link #REP_ONE_PER_NODE}
     * @param p1 for {@code LOCAL_AND_BEYOND}: elements in the array
     * @param p2 for {@code LOCAL_AND_BEYOND}: the id of the scheduled loop over it
     * @param p3 for {@code LOCAL_AND_BEYOND}: neighbouring elements copied on each side
     */
    public void toReplication(SmiRegion region, int mode, int p1, int p2, int p3) {
        RegionImpl r = impl(region);
        int m = mode & ~REP_ONE_PER_NODE;
        if (m < REP_EVERYTHING || m > REP_LOCAL_AND_BEYOND) {
            throw Errors.fail(SmiError.PARAM, "unknown replication mode " + mode);
        }
        if (m == REP_LOCAL_AND_BEYOND && (p1 <= 0 || r.size() % p1 != 0 || p3 < 0)) {
            throw Errors.fail(SmiError.PARAM, "LOCAL_AND_BEYOND needs an element count dividing the region size and p3 >= 0");
        }
        job.barrier();
        if (r.replica() != null) {
            return;
        }
        MemorySegment copy = Arena.ofAuto().allocate(r.size(), 8);
        if (m == REP_EVERYTHING) {
            r.sharedGet(0, copy);
        } else if (m == REP_LOCAL_AND_BEYOND) {
            long elem = r.size() / p1;
            long[] share = loops.share(p2, job.rank(), p1);
            long lo = Math.max(0, share[0] - p3);
            long hi = Math.min(p1, share[1] + p3);
            if (hi > lo) {
                r.sharedGet(lo * elem, copy.asSlice(lo * elem, (hi - lo) * elem));
            }
        }
        r.replica(copy);
        job.barrier();
    }

    /**
     * {@code SMI_Switch_to_sharing}.
     *
     * @param region the region
     * @param comb a {@code SHR_*} mode or {@code SHR_ADD | DTYPE_*}
     * @param p1 the source rank, or the number of elements to add
     * @param p2 unused
     */
    public void toSharing(SmiRegion region, int comb, long p1, long p2) {
        RegionImpl r = impl(region);
        combine(r, comb, p1);
        r.replica(null);
        job.barrier();
    }

    /**
     * {@code SMI_Ensure_consistency}: combines as {@link #toSharing}, then refreshes every copy
     * from the combined contents; the region stays replicated.
     *
     * @param region the region
     * @param comb the combine mode
     * @param p1 its parameter
     * @param p2 unused
     */
    public void ensure(SmiRegion region, int comb, long p1, long p2) {
        RegionImpl r = impl(region);
        if (r.replica() == null) {
            throw Errors.fail(SmiError.PARAM, "region " + r.id() + " is not replicated");
        }
        combine(r, comb, p1);
        r.sharedGet(0, r.replica());
        job.barrier();
    }

    private void combine(RegionImpl r, int comb, long p1) {
        if ((comb & SHR_ADD) != 0) {
            add(r, comb, p1);
            return;
        }
        int mode = comb & ~SHR_SPARSE;
        if (mode == SHR_LOOP_SPLITTING || mode < SHR_NOTHING || mode > SHR_EVERY_LOCAL) {
            throw Errors.fail(SmiError.PARAM, "combine mode " + comb + " is unknown or obsolete (SHR_LOOP_SPLITTING)");
        }
        if (mode == SHR_SINGLE_SOURCE) {
            Errors.checkRank((int) p1, job.size(), "comb_param1 (source rank)");
        }
        job.barrier();
        MemorySegment copy = r.replica();
        if (copy != null) {
            if (mode == SHR_SINGLE_SOURCE && p1 == job.rank()) {
                r.sharedPut(0, copy);
            } else if (mode == SHR_EVERY_LOCAL) {
                for (RegionImpl.Part p : r.parts()) {
                    if (p.owner == job.rank()) {
                        r.sharedPut(p.start, copy.asSlice(p.start, p.size));
                    }
                }
            }
        }
        job.barrier();
    }

    private void add(RegionImpl r, int comb, long count) {
        boolean fp = (comb & DTYPE_FLOATINGPOINT) != 0;
        boolean wide = (comb & DTYPE_HIGHPRECISION) != 0;
        long width = wide ? 8 : 4;
        if (count < 0 || count * width > r.size() || (fp && (comb & DTYPE_FIXPOINT) != 0)) {
            throw Errors.fail(SmiError.PARAM, "SHR_ADD of " + count + " elements: bad count or data type " + comb);
        }
        if (addLock == null) {
            addLock = job.mutexes().create(-1);
        }
        MemorySegment mine = r.replica() == null ? MemorySegment.ofArray(new byte[(int) (count * width)])
            : r.replica().asSlice(0, count * width);
        if (r.replica() == null) {
            r.sharedGet(0, mine);
        }
        job.barrier();
        if (job.rank() == 0) {
            r.sharedPut(0, mine);
        }
        job.barrier();
        if (job.rank() != 0) {
            MemorySegment sum = MemorySegment.ofArray(new byte[(int) (count * width)]);
            addLock.lock();
            try {
                r.sharedGet(0, sum);
                for (long i = 0; i < count; i++) {
                    long o = i * width;
                    if (fp && wide) {
                        sum.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, o, sum.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, o)
                            + mine.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, o));
                    } else if (fp) {
                        sum.set(ValueLayout.JAVA_FLOAT_UNALIGNED, o, sum.get(ValueLayout.JAVA_FLOAT_UNALIGNED, o)
                            + mine.get(ValueLayout.JAVA_FLOAT_UNALIGNED, o));
                    } else if (wide) {
                        sum.set(ValueLayout.JAVA_LONG_UNALIGNED, o, sum.get(ValueLayout.JAVA_LONG_UNALIGNED, o)
                            + mine.get(ValueLayout.JAVA_LONG_UNALIGNED, o));
                    } else {
                        sum.set(ValueLayout.JAVA_INT_UNALIGNED, o, sum.get(ValueLayout.JAVA_INT_UNALIGNED, o)
                            + mine.get(ValueLayout.JAVA_INT_UNALIGNED, o));
                    }
                }
                r.sharedPut(0, sum);
            } finally {
                addLock.unlock();
            }
        }
        job.barrier();
    }
}
