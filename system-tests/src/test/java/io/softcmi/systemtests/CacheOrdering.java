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
    /** IRIW: x at 0 of the first segment, y at 0 of the second. */
    static final long IRIW_WORD = 0;
    /** IRIW: the per-trial barrier counter, in the first segment (another line than x). */
    static final long IRIW_BARRIER = 2048;
    /** IRIW: writers and readers. */
    static final int IRIW_PARTIES = 4;
    private static final long LIMIT_NANOS = TimeUnit.SECONDS.toNanos(90);
    private static final int MAX_WRITES = 10_000_000;

    private CacheOrdering() {
    }

    /** Adds one to the counter with atm_cas. */
    private static void arrive(CmiContext ctx, CmiMapping m, long counter) {
        long seen = 0;
        long was;
        while ((was = ctx.atmCas(m, counter, seen, seen + 1)) != seen) {
            seen = was;
        }
    }

    /** Waits (rmb between reads, and one after) until the counter reaches {@code target}. @return false on timeout */
    private static boolean await(CmiContext ctx, CmiMapping m, long counter, long target, long deadline) {
        while (m.getLong(counter) < target) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            ctx.rmb();
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

    /**
     * IRIW writer {@code role} (0 writes x, 1 writes y): in trial {@code t} it meets the other
     * three parties at the barrier, then stores {@code t} and releases (wmb).
     *
     * @return {@code DONE trials}
     */
    static String iriwWrite(CmiContext ctx, CmiMapping x, CmiMapping y, int role, int trials) {
        long deadline = System.nanoTime() + LIMIT_NANOS;
        CmiMapping target = role == 0 ? x : y;
        for (int t = 1; t <= trials; t++) {
            arrive(ctx, x, IRIW_BARRIER);
            if (!await(ctx, x, IRIW_BARRIER, (long) IRIW_PARTIES * t, deadline)) {
                return "TIMEOUT " + t;
            }
            target.putLong(IRIW_WORD, LitmusWord.encode(role, t));
            ctx.wmb();
        }
        return "DONE " + trials;
    }

    /**
     * IRIW reader {@code role}: in trial {@code t}, after the barrier, role 0 reads x, mb, y and
     * role 1 reads y, mb, x. A read is "new" when it returns {@code t}.
     *
     * @return {@code IRIW trials hexFirstReadNew hexSecondReadNew errors [first]}; errors are
     *         values that are malformed or from a trial not yet begun
     */
    static String iriwRead(CmiContext ctx, CmiMapping x, CmiMapping y, int role, int trials) {
        long deadline = System.nanoTime() + LIMIT_NANOS;
        CmiMapping firstMapping = role == 0 ? x : y;
        CmiMapping secondMapping = role == 0 ? y : x;
        BitSet firstNew = new BitSet(trials);
        BitSet secondNew = new BitSet(trials);
        long errors = 0;
        String first = "";
        for (int t = 1; t <= trials; t++) {
            arrive(ctx, x, IRIW_BARRIER);
            if (!await(ctx, x, IRIW_BARRIER, (long) IRIW_PARTIES * t, deadline)) {
                return "TIMEOUT " + t;
            }
            long a = firstMapping.getLong(IRIW_WORD);
            ctx.mb();
            long b = secondMapping.getLong(IRIW_WORD);
            int sa = LitmusWord.sequence(role, a);
            int sb = LitmusWord.sequence(1 - role, b);
            if (sa < 0 || sb < 0 || sa > t || sb > t) {
                errors++;
                first = first.isEmpty() ? "trial" + t + ":" + Long.toHexString(a) + "," + Long.toHexString(b) : first;
            }
            firstNew.set(t - 1, sa == t);
            secondNew.set(t - 1, sb == t);
        }
        return "IRIW " + trials + " " + hex(firstNew) + " " + hex(secondNew) + " " + errors
            + (first.isEmpty() ? "" : " " + first);
    }

    private static String hex(BitSet b) {
        return b.isEmpty() ? "-" : HexFormat.of().formatHex(b.toByteArray());
    }
}
