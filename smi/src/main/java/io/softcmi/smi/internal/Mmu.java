package io.softcmi.smi.internal;

import io.softcmi.smi.SmiAddress;
import io.softcmi.smi.SmiError;
import io.softcmi.smi.SmiMutex;

/**
 * Dynamic memory in a region ({@code SMI_Init_shregMMU}, {@code SMI_Imalloc}, {@code SMI_Cmalloc},
 * {@code SMI_Ifree}, {@code SMI_Cfree}; manual §8.1): a binary buddy allocator (Knowlton 1965)
 * over the largest power-of-two part of the region after its first page, which holds the
 * allocator's own data. Every block starts with a 16-byte header (order and a used bit, then the
 * next free block of its order); the free-list heads are in the first page. Its state lives in the
 * region, so any process may allocate: in a collective region the allocator is guarded by an MCS
 * mutex made collectively by {@code initMmu}; in a {@code LOCAL} region only the owner uses it.
 * <pre>
 *   first page: 0 MAGIC, 8 ARENA (offset), 16 MAX_ORDER, 24 CMALLOC (last collective result), 64 HEAD[order]
 * </pre>
 */
final class Mmu {
    private static final long MAGIC_VALUE = 0x31554d4d494d53L; // "SMIMMU1"
    private static final long MAGIC = 0;
    private static final long ARENA = 8;
    private static final long MAX_ORDER = 16;
    private static final long CMALLOC = 24;
    private static final long HEAD = 64;
    private static final int MIN_ORDER = 5;
    private static final long HEADER = 16;
    private static final long NONE = -1;

    private final RegionImpl region;
    private final Job job;
    private final SmiMutex lock;
    private final boolean collective;
    private final long arena;
    private final int maxOrder;

    private Mmu(RegionImpl region, Job job, SmiMutex lock, boolean collective, long arena, int maxOrder) {
        this.region = region;
        this.job = job;
        this.lock = lock;
        this.collective = collective;
        this.arena = arena;
        this.maxOrder = maxOrder;
    }

    /**
     * Initializes the allocator of a region (collective for collective regions: process 0 writes
     * the initial state, all meet at a barrier).
     */
    static Mmu init(RegionImpl region, Job job, boolean collective, long page) {
        long size = region.size();
        if (size < page + (1L << MIN_ORDER)) {
            throw Errors.fail(SmiError.NOMEM, "region " + region.id() + " is too small for a memory manager");
        }
        int maxOrder = 63 - Long.numberOfLeadingZeros(size - page);
        long arena = page;
        SmiMutex lock = collective ? job.mutexes().create(-1) : null;
        if (!collective || job.rank() == 0) {
            for (int o = MIN_ORDER; o <= maxOrder; o++) {
                region.putLong(HEAD + 8L * o, NONE);
            }
            region.putLong(arena, ((long) maxOrder << 1));
            region.putLong(arena + 8, NONE);
            region.putLong(HEAD + 8L * maxOrder, arena);
            region.putLong(ARENA, arena);
            region.putLong(MAX_ORDER, maxOrder);
            region.putLong(MAGIC, MAGIC_VALUE);
        }
        if (collective) {
            job.barrier();
        } else {
            job.context().wmb();
        }
        return new Mmu(region, job, lock, collective, arena, maxOrder);
    }

    private void enter() {
        if (lock != null) {
            lock.lock();
        }
        job.context().rmb();
    }

    private void leave() {
        job.context().wmb();
        if (lock != null) {
            lock.unlock();
        }
    }

    /** {@code SMI_Imalloc}. */
    SmiAddress imalloc(long n) {
        if (n <= 0) {
            throw Errors.fail(SmiError.PARAM, "allocation size must be positive, got " + n);
        }
        int want = Math.max(MIN_ORDER, 64 - Long.numberOfLeadingZeros(n + HEADER - 1));
        if (want > maxOrder) {
            throw Errors.fail(SmiError.NOMEM, n + " bytes exceed the managed " + (1L << maxOrder) + " bytes");
        }
        enter();
        try {
            int o = want;
            while (o <= maxOrder && region.getLong(HEAD + 8L * o) == NONE) {
                o++;
            }
            if (o > maxOrder) {
                throw Errors.fail(SmiError.NOMEM, "no free block of " + (1L << want) + " bytes in region " + region.id());
            }
            long block = pop(o);
            while (o > want) {
                o--;
                long buddy = block + (1L << o);
                push(buddy, o);
            }
            region.putLong(block, ((long) want << 1) | 1);
            return region.at(block + HEADER);
        } finally {
            leave();
        }
    }

    /** {@code SMI_Ifree}. */
    void ifree(SmiAddress a) {
        if (a == null || a.region() != region) {
            throw Errors.fail(SmiError.PARAM, "address " + a + " is not in region " + region.id());
        }
        long block = a.offset() - HEADER;
        if (block < arena || block >= arena + (1L << maxOrder) || ((block - arena) & ((1L << MIN_ORDER) - 1)) != 0) {
            throw Errors.fail(SmiError.PARAM, "address " + a + " was not allocated");
        }
        enter();
        try {
            long h = region.getLong(block);
            int o = (int) (h >>> 1);
            if ((h & 1) == 0 || o < MIN_ORDER || o > maxOrder) {
                throw Errors.fail(SmiError.PARAM, "address " + a + " is not an allocated block");
            }
            while (o < maxOrder) {
                long buddy = arena + ((block - arena) ^ (1L << o));
                if (region.getLong(buddy) != ((long) o << 1) || !unlink(buddy, o)) {
                    break;
                }
                block = Math.min(block, buddy);
                o++;
            }
            push(block, o);
        } finally {
            leave();
        }
    }

    /** {@code SMI_Cmalloc}: process 0 allocates, every process gets its address. */
    SmiAddress cmalloc(long n) {
        requireCollective("SMI_Cmalloc");
        job.barrier();
        RuntimeException failure = null;
        if (job.rank() == 0) {
            try {
                region.putLong(CMALLOC, imalloc(n).offset());
            } catch (RuntimeException e) {
                region.putLong(CMALLOC, NONE);
                failure = e;
            }
        }
        job.barrier();
        long off = region.getLong(CMALLOC);
        job.barrier();
        if (failure != null) {
            throw failure;
        }
        if (off == NONE) {
            throw Errors.fail(SmiError.NOMEM, "SMI_Cmalloc of " + n + " bytes failed on process 0");
        }
        return region.at(off);
    }

    /** {@code SMI_Cfree}. */
    void cfree(SmiAddress a) {
        requireCollective("SMI_Cfree");
        job.barrier();
        RuntimeException failure = null;
        if (job.rank() == 0) {
            try {
                ifree(a);
            } catch (RuntimeException e) {
                failure = e;
            }
        }
        job.barrier();
        if (failure != null) {
            throw failure;
        }
    }

    private void requireCollective(String what) {
        if (!collective) {
            throw Errors.fail(SmiError.PARAM, what + " needs a collective region; region " + region.id() + " is "
                + region.type());
        }
    }

    private long pop(int o) {
        long head = region.getLong(HEAD + 8L * o);
        region.putLong(HEAD + 8L * o, region.getLong(head + 8));
        return head;
    }

    private void push(long block, int o) {
        region.putLong(block, (long) o << 1);
        region.putLong(block + 8, region.getLong(HEAD + 8L * o));
        region.putLong(HEAD + 8L * o, block);
    }

    /** Removes a free block from its list; false if it is not there. */
    private boolean unlink(long block, int o) {
        long prev = NONE;
        long cur = region.getLong(HEAD + 8L * o);
        while (cur != NONE) {
            long next = region.getLong(cur + 8);
            if (cur == block) {
                if (prev == NONE) {
                    region.putLong(HEAD + 8L * o, next);
                } else {
                    region.putLong(prev + 8, next);
                }
                return true;
            }
            prev = cur;
            cur = next;
        }
        return false;
    }
}
