package io.softcmi.systemtests;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The random mix of {@link RandomMix}: the memory layout and, for each process, its sequence of
 * operations, drawn from the seed alone. Nothing in a plan depends on what a process reads, so
 * every process can replay every other's plan and know what each publication covered.
 *
 * <p>Layout: {@link #PROCESSES} segments of {@link #SEGMENT_SIZE} bytes, segment {@code s}
 * homed on process {@code s}'s node. Each holds {@link #SLOTS} words, slot {@code j} at
 * {@code j * 680} (so some lines hold words of two writers: false sharing). Every word has
 * exactly one writer ({@link #owner}): in segment 0, process {@code j % 3}, process 0 through
 * its writable attach at the home (a home-local writer: acquires drop the whole segment); in
 * segments 1 and 2, the two processes of the other nodes, through cached imports, while the
 * home's process only reads them (a read-only attach: acquires drop only the lines others
 * wrote, so lines stay cached and a missing acquire shows). The publication counters
 * {@code PUB[p]}, the shared counter and the barriers are in segment 0, in lines that also hold
 * data words.
 */
final class MixPlan {
    /** Processes, one per node. */
    static final int PROCESSES = 3;
    /** Bytes of each segment. */
    static final long SEGMENT_SIZE = 16 * 1024;
    /** Data words per segment. */
    static final int SLOTS = 12;
    /** Data words in all. */
    static final int WORDS = PROCESSES * SLOTS;
    /** Offset of {@code PUB[0]} in segment 0; {@code PUB[p]} is {@code 8 p} further. */
    static final long PUB = 1024;
    /** Segment 0: the counter every publication increments with atm_cas. */
    static final long SHARED = 3072;
    /** Segment 0: the start barrier. */
    static final long START = 5120;
    /** Segment 0: the end barrier. */
    static final long END = 7168;

    /** Operation kinds. */
    enum Op {
        /** Store the next sequence number to one of the process's own words. */
        STORE,
        /** Load any word. */
        LOAD,
        /** Load another process's publication counter (plain, maybe cached). */
        LOAD_PUB,
        /** Read another process's publication counter with atm_cas (a release and an acquire). */
        CAS_PUB,
        /** Message passing: load another process's publication counter, rmb, load every word it writes. */
        OBSERVE,
        /** wmb. */
        WMB,
        /** rmb. */
        RMB,
        /** mb. */
        MB,
        /** wmb, atm_cas increment of the shared counter, atm_cas of the own publication counter. */
        PUBLISH
    }

    /**
     * One operation.
     *
     * @param op its kind
     * @param word the word (STORE, LOAD) or process (LOAD_PUB, CAS_PUB), else 0
     */
    record Step(Op op, int word) {
    }

    private final List<List<Step>> steps = new ArrayList<>();
    /** stores[w]: how many times its owner stores to word w in the whole plan. */
    private final int[] stores = new int[WORDS];
    /** snapshots.get(p).get(k - 1)[w]: the sequence number of word w after p's publication k (p's words only). */
    private final List<List<int[]>> snapshots = new ArrayList<>();

    /**
     * Draws the plans.
     *
     * @param seed the seed
     * @param ops operations per process (the final publication is added on top)
     */
    MixPlan(long seed, int ops) {
        for (int p = 0; p < PROCESSES; p++) {
            SplittableRandom rnd = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + p);
            int[] own = ownWords(p);
            int[] seq = new int[WORDS];
            List<Step> plan = new ArrayList<>(ops + 1);
            List<int[]> published = new ArrayList<>();
            for (int i = 0; i < ops; i++) {
                int r = rnd.nextInt(100);
                Step s;
                if (r < 30) {
                    s = new Step(Op.STORE, own[rnd.nextInt(own.length)]);
                } else if (r < 60) {
                    s = new Step(Op.LOAD, rnd.nextInt(WORDS));
                } else if (r < 64) {
                    s = new Step(Op.LOAD_PUB, other(p, rnd));
                } else if (r < 69) {
                    s = new Step(Op.OBSERVE, other(p, rnd));
                } else if (r < 73) {
                    s = new Step(Op.CAS_PUB, other(p, rnd));
                } else if (r < 79) {
                    s = new Step(Op.WMB, 0);
                } else if (r < 86) {
                    s = new Step(Op.RMB, 0);
                } else if (r < 92) {
                    s = new Step(Op.MB, 0);
                } else {
                    s = new Step(Op.PUBLISH, 0);
                }
                plan.add(s);
                if (s.op == Op.STORE) {
                    seq[s.word]++;
                } else if (s.op == Op.PUBLISH) {
                    published.add(seq.clone());
                }
            }
            plan.add(new Step(Op.PUBLISH, 0)); // the final one: covers every store
            published.add(seq.clone());
            for (int w : own) {
                stores[w] = seq[w];
            }
            steps.add(plan);
            snapshots.add(published);
        }
    }

    private static int other(int p, SplittableRandom rnd) {
        return (p + 1 + rnd.nextInt(PROCESSES - 1)) % PROCESSES;
    }

    /** @return the words process {@code p} writes */
    static int[] ownWords(int p) {
        return java.util.stream.IntStream.range(0, WORDS).filter(w -> owner(w) == p).toArray();
    }

    /** @return the process that writes word {@code w} */
    static int owner(int w) {
        int s = segment(w);
        int j = w % SLOTS;
        return s == 0 ? j % PROCESSES : (s + 1 + j % 2) % PROCESSES;
    }

    /** @return the segment of word {@code w} */
    static int segment(int w) {
        return w / SLOTS;
    }

    /** @return the offset of word {@code w} in its segment */
    static long offset(int w) {
        return (w % SLOTS) * 680L;
    }

    /** @return the offset of {@code PUB[p]} in segment 0 */
    static long pub(int p) {
        return PUB + 8L * p;
    }

    /** @return process {@code p}'s operations, the final publication last */
    List<Step> steps(int p) {
        return steps.get(p);
    }

    /** @return how many times word {@code w} is stored to in all */
    int stores(int w) {
        return stores[w];
    }

    /** @return how many publications process {@code p} makes */
    int publications(int p) {
        return snapshots.get(p).size();
    }

    /** @return the sequence number word {@code w} (of process {@code p}) had at p's publication {@code k} (0 for k = 0) */
    int published(int p, int k, int w) {
        return k == 0 ? 0 : snapshots.get(p).get(k - 1)[w];
    }
}
