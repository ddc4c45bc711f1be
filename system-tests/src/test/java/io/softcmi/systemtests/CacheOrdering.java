package io.softcmi.systemtests;

import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import java.util.BitSet;
import java.util.HexFormat;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Worker-side programs of the ordering litmus tests over cached imports ({@link CacheOrderingTest}):
 * CoRR (a later read of a location never returns an older value than an earlier one) and IRIW
 * with {@code mb} (two readers never disagree on the order of two independent writes). Run by
 * {@link RemoteWorkers}; trials are batched in the worker, every loop is bounded in count and in
 * time. Values are {@link LitmusWord}s.
 */
final class CacheOrdering {
    /** CoRR: the written words of each segment, in different lines. */
    static final long[] CORR_WORDS = {0, 2048};
    /** CoRR: reader {@code r} stores to {@code CORR_NEIGHBOUR + 64 r}, in the line of word 0 (false sharing). */
    static final long CORR_NEIGHBOUR = 64;
    /** CoRR: the readers' done counter, at this offset of the third (control) segment. */
    static final long CORR_STOP = 0;
    /** IRIW: trials per batch (one barrier per batch); each trial has its own x and y. */
    static final int IRIW_BATCH = 100;
    /** IRIW: bytes of the x and y segments. */
    static final long IRIW_SIZE = 256 * 1024;
    /** IRIW: the per-batch barrier counter, in the x segment after the words. */
    static final long IRIW_BARRIER = IRIW_SIZE - 1024;
    /** IRIW: writers and readers. */
    static final int IRIW_PARTIES = 4;
    private static final long LIMIT_NANOS = TimeUnit.SECONDS.toNanos(90);
    private static final int MAX_WRITES = 10_000_000;

    private CacheOrdering() {
    }

    /** Adds one to the counter with atm_cas. */
    private static void arrive(CmiContext ctx, CmiMapping m, long counter) {
        CacheLitmus.arrive(ctx, m, counter);
    }

    /** Waits (rmb between reads, and one after) until the counter reaches {@code target}. @return false on timeout */
    private static boolean await(CmiContext ctx, CmiMapping m, long counter, long target, long deadline) {
        if (!CacheLitmus.await(ctx, m, counter, target, deadline)) {
            return false;
        }
        ctx.rmb(); // what was released before the last arrival is acquired
        return true;
    }

    private static int corrLocation(int segment, int word) {
        return segment * CORR_WORDS.length + word;
    }

    /**
     * CoRR writer: value {@code i = 1, 2, ...} goes to every word of both data segments
     * ({@code m[0]}, {@code m[1]}), then wmb, until {@code readers} readers counted themselves
     * done at {@link #CORR_STOP} of the control segment {@code m[2]} (or time is up).
     *
     * @return {@code DONE writes}
     */
    static String corrWrite(CmiContext ctx, CmiMapping[] m, int readers) {
        long deadline = System.nanoTime() + LIMIT_NANOS;
        int i = 1;
        for (; i <= MAX_WRITES; i++) {
            for (int s = 0; s < 2; s++) {
                for (int w = 0; w < CORR_WORDS.length; w++) {
                    m[s].putLong(CORR_WORDS[w], LitmusWord.encode(corrLocation(s, w), i));
                }
            }
            ctx.wmb();
            if ((i & 31) == 0) {
                ctx.rmb();
                if (m[2].getLong(CORR_STOP) >= readers) {
                    return "DONE " + i;
                }
                if (System.nanoTime() - deadline > 0) {
                    return "TIMEOUT " + i;
                }
                LockSupport.parkNanos(1); // leave the cores to the readers and the homes for a moment
            }
        }
        return "DONE " + (i - 1);
    }

    /**
     * CoRR reader: reads the writer's words (in {@code m[0]}, {@code m[1]}) in a random order
     * (seeded), half of the reads after
     * an rmb and half without any barrier, until it did {@code reads} of each kind; a read that
     * returns an older sequence number than an earlier read of the same location is a violation.
     * Now and then it stores to its own word in the line of word 0 of segment {@code cached} (a
     * cached import: the line is then dirty when the writer's store invalidates it) and reads it
     * back at once, which must give exactly what it stored. Then it counts itself done at
     * {@link #CORR_STOP} of the control segment {@code m[2]}.
     *
     * @return {@code CORR barrierReads plainReads changes malformed violations ownErrors [first]},
     *         where changes counts reads that saw a newer value than the last
     */
    static String corrRead(CmiContext ctx, CmiMapping[] m, int cached, int slot, int reads, long seed) {
        long deadline = System.nanoTime() + LIMIT_NANOS;
        SplittableRandom rnd = new SplittableRandom(seed);
        int locations = 2 * CORR_WORDS.length;
        int[] last = new int[locations];
        long barrierReads = 0;
        long plainReads = 0;
        long changes = 0;
        long malformed = 0;
        long violations = 0;
        long ownErrors = 0;
        long mine = 0;
        long own = CORR_NEIGHBOUR + 64L * slot;
        String first = "";
        try {
            for (long n = 0; barrierReads < reads || plainReads < reads; n++) {
                if ((n & 255) == 0 && System.nanoTime() - deadline > 0) {
                    return "TIMEOUT " + barrierReads + " " + plainReads;
                }
                int loc = rnd.nextInt(locations);
                boolean barrier = rnd.nextBoolean();
                if (barrier) {
                    ctx.rmb();
                    barrierReads++;
                } else {
                    plainReads++;
                }
                long v = m[loc / CORR_WORDS.length].getLong(CORR_WORDS[loc % CORR_WORDS.length]);
                int seq = LitmusWord.sequence(loc, v);
                if (seq == LitmusWord.MALFORMED) {
                    malformed++;
                    first = first.isEmpty() ? "malformed@" + loc + "=" + Long.toHexString(v) + ",read" + n : first;
                } else if (seq < last[loc]) {
                    violations++;
                    first = first.isEmpty() ? "older@" + loc + ":" + seq + "<" + last[loc] + ",read" + n
                        + (barrier ? ",rmb" : ",plain") : first;
                } else {
                    if (seq > last[loc]) {
                        changes++;
                    }
                    last[loc] = seq;
                }
                if (rnd.nextInt(8) == 0) {
                    m[cached].putLong(own, ++mine);
                    if (m[cached].getLong(own) != mine) {
                        ownErrors++;
                    }
                }
            }
        } finally {
            arrive(ctx, m[2], CORR_STOP); // a release too: the own word reaches the home
        }
        return "CORR " + barrierReads + " " + plainReads + " " + changes + " " + malformed + " " + violations + " "
            + ownErrors + (first.isEmpty() ? "" : " " + first);
    }

    /** @return the offset of trial {@code t}'s word (x in the first segment, y in the second): one line every other line, so no miss reads ahead */
    static long iriwWord(int t) {
        return t * 2048L;
    }

    /**
     * IRIW writer {@code role} (0 writes x, 1 writes y). Trials come in batches of
     * {@link #IRIW_BATCH}, each trial with its own x and y ({@link #iriwWord}). Batch {@code n}
     * starts at a barrier of the four parties; then the writer stores {@code n} to its word of
     * every trial of the batch, each followed by wmb, forwards in even batches and backwards in
     * odd ones (so the readers, always forwards, meet the writers at different points).
     *
     * @return {@code DONE trials}
     */
    static String iriwWrite(CmiContext ctx, CmiMapping x, CmiMapping y, int role, int trials) {
        long deadline = System.nanoTime() + LIMIT_NANOS;
        CmiMapping target = role == 0 ? x : y;
        int batches = trials / IRIW_BATCH;
        for (int n = 1; n <= batches; n++) {
            if (!meet(ctx, x, n, deadline)) {
                return "TIMEOUT " + n;
            }
            for (int i = 0; i < IRIW_BATCH; i++) {
                int t = n % 2 == 0 ? i : IRIW_BATCH - 1 - i;
                target.putLong(iriwWord(t), LitmusWord.encode(iriwLocation(role, t), n));
                ctx.wmb();
            }
        }
        return "DONE " + batches * IRIW_BATCH;
    }

    /**
     * IRIW reader {@code role}: after batch {@code n}'s barrier, for each trial of the batch,
     * role 0 reads x, mb, y and role 1 reads y, mb, x. A read is "new" when it returns
     * {@code n}; it must return at least {@code n - 1} (the writers released batch
     * {@code n - 1} before the barrier, which the reader acquired).
     *
     * @return {@code IRIW trials hexFirstReadNew hexSecondReadNew errors [first]}; errors are
     *         values malformed, from a batch not begun, or older than the last batch
     */
    static String iriwRead(CmiContext ctx, CmiMapping x, CmiMapping y, int role, int trials) {
        long deadline = System.nanoTime() + LIMIT_NANOS;
        CmiMapping firstMapping = role == 0 ? x : y;
        CmiMapping secondMapping = role == 0 ? y : x;
        int batches = trials / IRIW_BATCH;
        BitSet firstNew = new BitSet(trials);
        BitSet secondNew = new BitSet(trials);
        long errors = 0;
        String first = "";
        for (int n = 1; n <= batches; n++) {
            if (!meet(ctx, x, n, deadline)) {
                return "TIMEOUT " + n;
            }
            for (int t = 0; t < IRIW_BATCH; t++) {
                long a = firstMapping.getLong(iriwWord(t));
                ctx.mb();
                long b = secondMapping.getLong(iriwWord(t));
                int sa = LitmusWord.sequence(iriwLocation(role, t), a);
                int sb = LitmusWord.sequence(iriwLocation(1 - role, t), b);
                if (sa < n - 1 || sb < n - 1 || sa > n || sb > n) {
                    errors++;
                    first = first.isEmpty() ? "batch" + n + ",trial" + t + ":" + Long.toHexString(a) + ","
                        + Long.toHexString(b) : first;
                }
                int trial = (n - 1) * IRIW_BATCH + t;
                firstNew.set(trial, sa == n);
                secondNew.set(trial, sb == n);
            }
        }
        return "IRIW " + batches * IRIW_BATCH + " " + hex(firstNew) + " " + hex(secondNew) + " " + errors
            + (first.isEmpty() ? "" : " " + first);
    }

    private static int iriwLocation(int xOrY, int t) {
        return xOrY * 128 + t;
    }

    /** Batch {@code n}'s barrier of the four IRIW parties. */
    private static boolean meet(CmiContext ctx, CmiMapping x, int n, long deadline) {
        arrive(ctx, x, IRIW_BARRIER);
        return await(ctx, x, IRIW_BARRIER, (long) IRIW_PARTIES * n, deadline);
    }

    private static String hex(BitSet b) {
        return b.isEmpty() ? "-" : HexFormat.of().formatHex(b.toByteArray());
    }
}
