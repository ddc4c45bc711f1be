package io.softcmi.systemtests;

import java.util.ArrayList;
import java.util.List;

/**
 * The sequential model of the release-consistency rules that one process of {@link RandomMix}
 * checks its observations against (cmi(7) "CMI Memory Model", docs/cache.md):
 * <ul>
 *   <li><b>well formed</b>: a load returns 0 or a value some store wrote to that very location
 *       ({@link LitmusWord}); a torn or misplaced value is counted apart as malformed;</li>
 *   <li><b>read own writes</b>: a load of a word this process writes returns its last store;</li>
 *   <li><b>CoRR</b>: loads of one location (data word or publication counter) never go back;</li>
 *   <li><b>release/acquire</b>: once this process has observed {@code PUB[q] = k} (a plain load
 *       followed by an acquire: rmb, mb or atm_cas; or an atm_cas that returned it), every load
 *       of a word {@code q} writes returns at least the sequence number it had at q's
 *       publication {@code k} (q released its stores before the atm_cas that published);</li>
 *   <li><b>counters</b>: a publication counter never exceeds the publications of its owner, and
 *       the owner's own atm_cas on it never fails (it is its only writer).</li>
 * </ul>
 * Single-threaded: one model per process, fed in program order.
 */
final class MixModel {
    /** Violations kept with their description. */
    static final int KEPT = 5;

    private final MixPlan plan;
    private final int me;
    private final int[] lastSeen = new int[MixPlan.WORDS];
    private final int[] mine = new int[MixPlan.WORDS];
    private final int[] lastPub = new int[MixPlan.PROCESSES];
    private final int[] observed = new int[MixPlan.PROCESSES];
    private final int[] acquired = new int[MixPlan.PROCESSES];
    private final List<String> described = new ArrayList<>();
    private long violations;
    private long malformed;
    private long checkedLoads;
    private long step;

    /**
     * @param plan the plan of every process
     * @param me this process
     */
    MixModel(MixPlan plan, int me) {
        this.plan = plan;
        this.me = me;
    }

    /** The step number that descriptions of violations name (the index in the plan). */
    void at(long stepIndex) {
        this.step = stepIndex;
    }

    /** This process stored the next sequence number to its word {@code w}. @return the value to store */
    long store(int w) {
        if (MixPlan.owner(w) != me) {
            throw new IllegalArgumentException("word " + w + " is not written by process " + me);
        }
        return LitmusWord.encode(w, ++mine[w]);
    }

    /** A load of word {@code w} returned {@code value}. */
    void load(int w, long value) {
        checkedLoads++;
        int seq = LitmusWord.sequence(w, value);
        int q = MixPlan.owner(w);
        if (seq == LitmusWord.MALFORMED || seq > plan.stores(w)) {
            malformed++;
            if (described.size() < KEPT) {
                described.add("step " + step + ": word " + w + " malformed 0x" + Long.toHexString(value));
            }
            return;
        }
        if (q == me) {
            if (seq != mine[w]) {
                violation("word " + w + " (own) read " + seq + ", last stored " + mine[w]);
            }
            return;
        }
        if (seq < lastSeen[w]) {
            violation("word " + w + " read " + seq + " after " + lastSeen[w] + " (CoRR)");
        }
        int floor = plan.published(q, acquired[q], w);
        if (seq < floor) {
            violation("word " + w + " read " + seq + " after acquiring publication " + acquired[q] + " of process " + q
                + " which had " + floor);
        }
        lastSeen[w] = Math.max(lastSeen[w], seq);
    }

    /** A plain load of {@code PUB[q]} returned {@code k}; it counts once an acquire follows. */
    void loadPub(int q, long k) {
        if (checkPub(q, k)) {
            observed[q] = Math.max(observed[q], (int) k);
        }
    }

    /** An atm_cas that did not change {@code PUB[q]} returned {@code k} (the atm_cas acquires after it). */
    void casPub(int q, long k) {
        if (checkPub(q, k)) {
            observed[q] = Math.max(observed[q], (int) k);
        }
        acquire();
    }

    private boolean checkPub(int q, long k) {
        if (k < 0 || k > plan.publications(q)) {
            violation("PUB[" + q + "] = " + k + ", more than its " + plan.publications(q) + " publications");
            return false;
        }
        if (k < lastPub[q]) {
            violation("PUB[" + q + "] read " + k + " after " + lastPub[q] + " (CoRR)");
        }
        lastPub[q] = Math.max(lastPub[q], (int) k);
        return true;
    }

    /** An acquire (rmb, mb, atm_cas): what was observed before it now binds. */
    void acquire() {
        for (int q = 0; q < MixPlan.PROCESSES; q++) {
            acquired[q] = Math.max(acquired[q], observed[q]);
        }
    }

    /** This process's atm_cas of its own {@code PUB[me]} from {@code k - 1} to {@code k} returned {@code before}. */
    void published(int k, long before) {
        if (before != k - 1) {
            violation("own PUB[" + me + "] was " + before + " before publication " + k + ", expected " + (k - 1));
        }
        acquire();
    }

    private void violation(String what) {
        violations++;
        if (described.size() < KEPT) {
            described.add("step " + step + ": " + what);
        }
    }

    /** @return violations of the rules (malformed values not counted) */
    long violations() {
        return violations;
    }

    /** @return loads that returned a value never written there */
    long malformed() {
        return malformed;
    }

    /** @return data-word loads checked */
    long checkedLoads() {
        return checkedLoads;
    }

    /** @return the first violations and malformed values, described */
    List<String> described() {
        return described;
    }
}
