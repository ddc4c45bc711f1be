package io.softcmi.systemtests;

import io.softcmi.cmi.CmiAddress;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.FlushEpoch;
import java.util.BitSet;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Worker-side programs of the cached-import system tests ({@link CachedImportTest}), run by
 * {@link RemoteWorkers}. Every loop is bounded in count and in time.
 */
final class CacheLitmus {
    /** Store buffering: the two words, in different lines, and the per-trial barrier counter. */
    static final long SB_X = 0;
    static final long SB_STRIDE = 4096;
    static final long SB_COUNTER = 8192;
    private static final long LIMIT_NANOS = TimeUnit.SECONDS.toNanos(100);

    private CacheLitmus() {
    }

    /** Adds one to the counter with atm_cas. */
    static void arrive(CmiContext ctx, CmiMapping m, long counter) {
        long seen = 0;
        long was;
        while ((was = ctx.atmCas(m, counter, seen, seen + 1)) != seen) {
            seen = was;
        }
    }

    /** Waits until the counter reaches {@code target} (rmb between reads). @return false on timeout */
    static boolean await(CmiContext ctx, CmiMapping m, long counter, long target, long deadline) {
        while (m.getLong(counter) < target) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            ctx.rmb();
        }
        return true;
    }

    /**
     * Store buffering with mb: trial t is {@code x[me] = t; mb; r = x[other]}, both parties
     * meeting at an atm_cas barrier first. Seeing {@code r < t} is "zero" for this party; both
     * parties seeing zero in the same trial is forbidden.
     *
     * @return {@code SB trials hexBitsOfTrialsThatSawZero}
     */
    static String storeBuffering(CmiContext ctx, CmiMapping m, int me, int trials) {
        long deadline = System.nanoTime() + LIMIT_NANOS;
        BitSet sawOld = new BitSet(trials);
        long mine = SB_X + me * SB_STRIDE;
        long other = SB_X + (1 - me) * SB_STRIDE;
        for (int t = 1; t <= trials; t++) {
            arrive(ctx, m, SB_COUNTER);
            if (!await(ctx, m, SB_COUNTER, 2L * t, deadline)) {
                return "TIMEOUT " + t;
            }
            m.putLong(mine, t);
            ctx.mb();
            if (m.getLong(other) < t) {
                sawOld.set(t - 1);
            }
        }
        return "SB " + trials + " " + HexFormat.of().formatHex(sawOld.toByteArray());
    }

    /** False sharing: writes {@code round} into the bytes of {@code [0, len)} with parity {@code parity}, wmb, for each round. */
    static String falseSharing(CmiContext ctx, CmiMapping m, int parity, int len, int rounds) {
        for (int r = 1; r <= rounds; r++) {
            for (int i = parity; i < len; i += 2) {
                m.putByte(i, (byte) r);
            }
            ctx.wmb();
        }
        return "DONE " + rounds;
    }

    /** rmb, then checks that every byte of {@code [0, len)} is {@code value}. */
    static String checkBytes(CmiContext ctx, CmiMapping m, int len, byte value) {
        ctx.rmb();
        int wrong = 0;
        int first = -1;
        for (int i = 0; i < len; i++) {
            if (m.getByte(i) != value) {
                wrong++;
                first = first < 0 ? i : first;
            }
        }
        return wrong == 0 ? "VERIFIED" : "MISMATCH " + wrong + " first " + first;
    }

    /**
     * A working set many times the cache: {@code rounds} rounds of a store to a word in every
     * 512-byte block of {@code [0, size)}, each round read back in full; then wmb.
     *
     * @return {@code VERIFIED} or the first stale value
     */
    static String evict(CmiContext ctx, CmiMapping m, long size, int rounds) {
        for (int r = 1; r <= rounds; r++) {
            for (long off = 0; off < size; off += 512) {
                m.putLong(off + 8, r * 1_000_000L + off);
            }
            for (long off = 0; off < size; off += 512) {
                long v = m.getLong(off + 8);
                if (v != r * 1_000_000L + off) {
                    return "STALE round " + r + " offset " + off + " value " + v;
                }
            }
        }
        ctx.wmb();
        return "VERIFIED";
    }

    /** rmb, then checks the values {@link #evict} left. */
    static String evictCheck(CmiContext ctx, CmiMapping m, long size, int rounds) {
        ctx.rmb();
        for (long off = 0; off < size; off += 512) {
            long v = m.getLong(off + 8);
            if (v != rounds * 1_000_000L + off) {
                return "STALE offset " + off + " value " + v;
            }
        }
        return "VERIFIED";
    }

    /**
     * A flush epoch covers its thread's stores: a second thread opens an epoch, stores
     * {@code 11} at 0 and flushes it; this thread stored {@code 22} at {@code other} before.
     *
     * @return {@code FLUSHED} once the second thread's flush_fb returned
     */
    static String epochFlush(CmiContext ctx, CmiMapping m, long other) {
        m.putLong(other, 22);
        AtomicReference<String> result = new AtomicReference<>("EXCEPTION thread did not finish");
        Thread t = Thread.ofPlatform().start(() -> {
            ctx.iniTh();
            try {
                ctx.enable(true);
                FlushEpoch e = ctx.openFb();
                m.putLong(0, 11);
                e.flush();
                m.putLong(8, 12);
                e.close();
                result.set("FLUSHED");
            } catch (RuntimeException ex) {
                result.set("EXCEPTION " + ex);
            } finally {
                ctx.fini();
            }
        });
        try {
            t.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return result.get();
    }

    /** Stores then {@code cflush} of the word's line only. */
    static String cflush(CmiContext ctx, CmiMapping m, long off, long value) {
        m.putLong(off, value);
        ctx.cflush(List.of(new CmiAddress(m, off)));
        return "OK";
    }

    /**
     * atm_cas counters next to cached stores: {@code n} increments of the word at {@code off}
     * with atm_cas, and a plain store of the loop index to the next word every time, all after
     * {@code parties} met at the barrier word.
     */
    static String casNextToStores(CmiContext ctx, CmiMapping m, long off, long n, long barrier, long parties) {
        long deadline = System.nanoTime() + LIMIT_NANOS;
        arrive(ctx, m, barrier);
        if (!await(ctx, m, barrier, parties, deadline)) {
            return "TIMEOUT barrier";
        }
        long expected = 0;
        for (long i = 0; i < n; i++) {
            while (true) {
                long was = ctx.atmCas(m, off, expected, expected + 1);
                if (was == expected) {
                    expected++;
                    break;
                }
                expected = was;
            }
            m.putLong(off + 8, i); // a cached store next to the counter
        }
        ctx.wmb();
        return "DONE " + n;
    }
}
