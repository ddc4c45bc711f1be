package io.softcmi.systemtests;

import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Worker side of the random-mix test ({@link CacheOrderingTest}): process {@code me} runs its
 * part of a {@link MixPlan} (loads, stores, wmb, rmb, mb, atm_cas) on the three segments, checks
 * every observation against {@link MixModel} as it goes, and at the end, after every process
 * published its last stores and met the others at a barrier, checks that every word holds its
 * writer's last value and that the atm_cas counters are exact.
 */
final class RandomMix {
    private static final long LIMIT_NANOS = TimeUnit.SECONDS.toNanos(90);

    private RandomMix() {
    }

    /**
     * Runs process {@code me}'s part.
     *
     * @param ctx the worker's context
     * @param m the worker's mappings of segments 0, 1, 2 (homed on the nodes of processes 0, 1, 2)
     * @param me this process
     * @param seed the plan's seed
     * @param ops operations per process
     * @return {@code MIX steps loads malformed violations finalErrors [| descriptions]}
     */
    static String run(CmiContext ctx, CmiMapping[] m, int me, long seed, int ops) {
        long deadline = System.nanoTime() + LIMIT_NANOS;
        MixPlan plan = new MixPlan(seed, ops);
        MixModel model = new MixModel(plan, me);
        if (!meet(ctx, m[0], MixPlan.START, deadline)) {
            return "TIMEOUT start barrier";
        }
        List<MixPlan.Step> steps = plan.steps(me);
        int publications = 0;
        for (int i = 0; i < steps.size(); i++) {
            if ((i & 255) == 0 && System.nanoTime() - deadline > 0) {
                return "TIMEOUT step " + i;
            }
            model.at(i);
            MixPlan.Step s = steps.get(i);
            int w = s.word();
            switch (s.op()) {
                case STORE -> m[MixPlan.segment(w)].putLong(MixPlan.offset(w), model.store(w));
                case LOAD -> model.load(w, m[MixPlan.segment(w)].getLong(MixPlan.offset(w)));
                case LOAD_PUB -> model.loadPub(w, m[0].getLong(MixPlan.pub(w)));
                case CAS_PUB -> model.casPub(w, ctx.atmCas(m[0], MixPlan.pub(w), -1, -1));
                case OBSERVE -> {
                    model.loadPub(w, m[0].getLong(MixPlan.pub(w)));
                    ctx.rmb();
                    model.acquire();
                    for (int v : MixPlan.ownWords(w)) {
                        model.load(v, m[MixPlan.segment(v)].getLong(MixPlan.offset(v)));
                    }
                }
                case WMB -> ctx.wmb();
                case RMB -> {
                    ctx.rmb();
                    model.acquire();
                }
                case MB -> {
                    ctx.mb();
                    model.acquire();
                }
                case PUBLISH -> {
                    publications++;
                    ctx.wmb();
                    increment(ctx, m[0], MixPlan.SHARED);
                    model.acquire();
                    model.published(publications, ctx.atmCas(m[0], MixPlan.pub(me), publications - 1, publications));
                }
            }
        }
        if (!meet(ctx, m[0], MixPlan.END, deadline)) {
            return "TIMEOUT end barrier";
        }
        List<String> finalErrors = finalCheck(m, plan);
        List<String> described = new ArrayList<>(model.described());
        described.addAll(finalErrors);
        return "MIX " + steps.size() + " " + model.checkedLoads() + " " + model.malformed() + " " + model.violations() + " "
            + finalErrors.size() + (described.isEmpty() ? "" : " | " + String.join("; ", described));
    }

    /** After the end barrier (an acquire): every word holds its last value, the counters are exact. */
    private static List<String> finalCheck(CmiMapping[] m, MixPlan plan) {
        List<String> errors = new ArrayList<>();
        for (int w = 0; w < MixPlan.WORDS; w++) {
            long expected = plan.stores(w) == 0 ? 0 : LitmusWord.encode(w, plan.stores(w));
            long v = m[MixPlan.segment(w)].getLong(MixPlan.offset(w));
            if (v != expected) {
                errors.add("final word " + w + " = " + LitmusWord.sequence(w, v) + ", expected " + plan.stores(w));
            }
        }
        long total = 0;
        for (int q = 0; q < MixPlan.PROCESSES; q++) {
            total += plan.publications(q);
            long pub = m[0].getLong(MixPlan.pub(q));
            if (pub != plan.publications(q)) {
                errors.add("final PUB[" + q + "] = " + pub + ", expected " + plan.publications(q));
            }
        }
        long shared = m[0].getLong(MixPlan.SHARED);
        if (shared != total) {
            errors.add("final shared counter = " + shared + ", expected " + total);
        }
        return errors;
    }

    /** Adds one with atm_cas. */
    private static void increment(CmiContext ctx, CmiMapping m, long off) {
        long seen = 0;
        long was;
        while ((was = ctx.atmCas(m, off, seen, seen + 1)) != seen) {
            seen = was;
        }
    }

    /** Arrives at a barrier counter and waits for every process (rmb between reads and after). */
    private static boolean meet(CmiContext ctx, CmiMapping m, long off, long deadline) {
        increment(ctx, m, off);
        while (m.getLong(off) < MixPlan.PROCESSES) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            ctx.rmb();
        }
        ctx.rmb();
        return true;
    }
}
