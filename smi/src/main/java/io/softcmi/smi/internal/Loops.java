package io.softcmi.smi.internal;

import io.softcmi.cmi.CmiMapping;
import io.softcmi.smi.Iterations;
import io.softcmi.smi.LoopMode;
import io.softcmi.smi.LoopStatus;
import io.softcmi.smi.SmiError;
import io.softcmi.smi.SmiLoop;

/**
 * Loop scheduling (SMI manual §13): affinity scheduling. Each process owns a share of the
 * iterations (a block, or its cyclic slice) kept as one word {@code WORK = next | end << 32} (share
 * indices) in its control segment; it takes chunks from the front of its own share and, when that
 * is empty, takes chunks from the back of other processes' shares (nearest ranks first, at most
 * {@code maxHelpDist} of them). Both ends move with {@code atm_cas} at the share's home, so an
 * iteration is handed out exactly once. A chunk is a {@code 1/k} of what is left ({@code k}
 * defaults to the number of processes), within the minimum and maximum chunk sizes.
 * <p>The first {@code getIterations} of every run of the loop is a global synchronization point:
 * a barrier (the previous run is over everywhere), the shares of this run, a barrier.
 * {@code ADAPTED_BLOCKED} sizes the blocks of a run by the iterations each process executed in
 * the previous run; {@code TIMED_BLOCKED} balances nothing during a run and sizes the next run's
 * blocks by each process's iteration rate in this one.
 */
public final class Loops {
    /** {@code SMI_HELP_ONLY_SMP}: help only processes of the same node. */
    public static final int HELP_ONLY_SMP = -1;

    private static final long WORK = 0;
    private static final long DONE = 8;
    private static final long RATE = 16;
    private static final long MASK = 0xffffffffL;

    private final Job job;
    private final java.util.Map<Integer, Loop> byId = new java.util.HashMap<>();
    private int nextId;
    private double[] speed;

    /** @param job the job */
    public Loops(Job job) {
        this.job = job;
    }

    /**
     * {@code SMI_Loop_init} (collective).
     *
     * @param low first iteration
     * @param high last iteration (inclusive)
     * @param mode partition policy
     * @return the loop
     */
    public SmiLoop create(int low, int high, LoopMode mode) {
        if (mode == null) {
            throw Errors.fail(SmiError.OTHER, "mode must not be null");
        }
        if (high < low) {
            throw Errors.fail(SmiError.PARAM, "globalHigh " + high + " is below globalLow " + low);
        }
        if (nextId >= Layout.MAX_LOOPS) {
            throw Errors.fail(SmiError.NOMEM, "at most " + Layout.MAX_LOOPS + " scheduled loops per job");
        }
        int id = nextId++;
        job.barrier();
        Loop l = new Loop(id, low, high, mode);
        byId.put(id, l);
        return l;
    }

    /**
     * The share of a process in a loop's current (or first) run, scaled to an array of
     * {@code elements} elements over the loop's index range, for {@code REP_LOCAL_AND_BEYOND}.
     *
     * @param id the loop id ({@link io.softcmi.smi.SmiLoop} creation order, from 0)
     * @param rank the process
     * @param elements the array's length
     * @return {@code [first, end)} element indices; the whole array for a {@code CYCLIC} loop
     */
    long[] share(int id, int rank, long elements) {
        Loop l = byId.get(id);
        if (l == null || l.freed) {
            throw Errors.fail(SmiError.PARAM, "no scheduled loop with id " + id);
        }
        if (l.mode == LoopMode.CYCLIC) {
            return new long[] {0, elements};
        }
        long[] st = l.start != null ? l.start : blocks(l.count, evenWeights(job.size()));
        return new long[] {st[rank] * elements / l.count, st[rank + 1] * elements / l.count};
    }

    private static double[] evenWeights(int n) {
        double[] w = new double[n];
        java.util.Arrays.fill(w, 1);
        return w;
    }

    /**
     * {@code SMI_Evaluate_speed} (collective): every process times the same floating-point kernel;
     * the slowest gets 1, the others their speed relative to it.
     *
     * @return the relative speeds, by rank
     */
    public double[] evaluateSpeed() {
        long t0 = System.nanoTime();
        double x = 0;
        for (int i = 1; i < 20_000_000; i++) {
            x += 1.0 / i * (i & 1) - 0.5 / i;
        }
        double t = (System.nanoTime() - t0) + (x == 42 ? 1 : 0);
        job.ownControl().map().putLong(Layout.CTRL_SPEED, Double.doubleToRawLongBits(t));
        job.barrier();
        double[] times = new double[job.size()];
        double slowest = 0;
        for (int r = 0; r < times.length; r++) {
            times[r] = Double.longBitsToDouble(job.control(r).getLong(Layout.CTRL_SPEED));
            slowest = Math.max(slowest, times[r]);
        }
        double[] s = new double[times.length];
        for (int r = 0; r < s.length; r++) {
            s[r] = slowest / times[r];
        }
        job.barrier();
        speed = s;
        return s.clone();
    }

    /** Splits {@code count} into blocks proportional to {@code weight}, in rank order. */
    static long[] blocks(long count, double[] weight) {
        double sum = 0;
        for (double w : weight) {
            sum += w;
        }
        long[] start = new long[weight.length + 1];
        double acc = 0;
        for (int r = 0; r < weight.length; r++) {
            acc += weight[r];
            start[r + 1] = r == weight.length - 1 ? count : Math.round(count * (acc / sum));
        }
        return start;
    }

    private final class Loop implements SmiLoop {
        private final int id;
        private final int low;
        private final long count;
        private final LoopMode mode;
        private final long base;
        private double k;
        private int minLocal = 1;
        private int minRemote = 1;
        private int maxLocal = Integer.MAX_VALUE;
        private int maxRemote = Integer.MAX_VALUE;
        private int maxHelpDist = 16;
        private boolean useSpeed;
        private boolean inRun;
        private boolean freed;
        private long[] start;
        private long done;
        private long runStart;
        private int victim;

        Loop(int id, int low, int high, LoopMode mode) {
            this.id = id;
            this.low = low;
            this.count = (long) high - low + 1;
            this.mode = mode;
            this.base = Layout.CTRL_LOOP + (long) Layout.LOOP_BYTES * id;
            this.k = job.size();
        }

        private void live() {
            if (freed) {
                throw Errors.fail(SmiError.PARAM, "loop " + id + " was freed");
            }
        }

        /** The number of iterations in process r's share of this run. */
        private long shareSize(int r) {
            if (mode == LoopMode.CYCLIC) {
                long n = job.size();
                return count / n + (r < count % n ? 1 : 0);
            }
            return start[r + 1] - start[r];
        }

        /** The first iteration of share index i of process r. */
        private int iteration(int r, long i) {
            if (mode == LoopMode.CYCLIC) {
                return (int) (low + r + i * job.size());
            }
            return (int) (low + start[r] + i);
        }

        private void beginRun() {
            int n = job.size();
            job.barrier();
            if (mode != LoopMode.CYCLIC) {
                double[] w = new double[n];
                for (int r = 0; r < n; r++) {
                    w[r] = 1;
                }
                if (start == null && useSpeed && speed != null) {
                    w = speed.clone();
                } else if (start != null && mode == LoopMode.ADAPTED_BLOCKED) {
                    for (int r = 0; r < n; r++) {
                        w[r] = Math.max(1, job.control(r).getLong(base + DONE));
                    }
                } else if (start != null && mode == LoopMode.TIMED_BLOCKED) {
                    for (int r = 0; r < n; r++) {
                        w[r] = Math.max(1e-9, Double.longBitsToDouble(job.control(r).getLong(base + RATE)));
                    }
                }
                start = blocks(count, w);
            }
            CmiMapping own = job.ownControl().map();
            own.putLong(base + WORK, shareSize(job.rank()) << 32);
            job.barrier();
            done = 0;
            victim = 1;
            inRun = true;
            runStart = System.nanoTime();
        }

        private long chunk(long left, boolean local) {
            long c = (long) Math.ceil(left / k);
            c = Math.max(c, local ? minLocal : minRemote);
            c = Math.min(c, local ? maxLocal : maxRemote);
            return Math.max(1, Math.min(c, left));
        }

        @Override
        public Iterations getIterations() {
            live();
            if (!inRun) {
                beginRun();
            }
            int me = job.rank();
            // Local phase: from the front of the own share.
            CmiMapping own = job.ownControl().map();
            long w = job.context().atmCas(own, base + WORK, -1, -1);
            while (true) {
                long next = w & MASK;
                long end = w >>> 32;
                if (next >= end) {
                    break;
                }
                long c = mode == LoopMode.TIMED_BLOCKED ? Math.min(end - next, maxLocal) : chunk(end - next, true);
                long nw = (next + c) | (end << 32);
                long seen = job.context().atmCas(own, base + WORK, w, nw);
                if (seen == w) {
                    return give(LoopStatus.LOCAL, me, next, c);
                }
                w = seen;
            }
            // Remote phase: from the back of other shares, nearest first.
            if (mode != LoopMode.TIMED_BLOCKED) {
                int n = job.size();
                int reach = maxHelpDist == HELP_ONLY_SMP ? n - 1 : Math.min(n - 1, maxHelpDist);
                for (; victim <= reach; victim++) {
                    int r = (me + victim) % n;
                    if (maxHelpDist == HELP_ONLY_SMP && job.env().procNode()[r] != job.env().procNode()[me]) {
                        continue;
                    }
                    CmiMapping m = job.control(r);
                    long v = job.context().atmCas(m, base + WORK, -1, -1);
                    while (true) {
                        long next = v & MASK;
                        long end = v >>> 32;
                        if (next >= end) {
                            break;
                        }
                        long c = chunk(end - next, false);
                        long nv = next | ((end - c) << 32);
                        long seen = job.context().atmCas(m, base + WORK, v, nv);
                        if (seen == v) {
                            return give(LoopStatus.REMOTE, r, end - c, c);
                        }
                        v = seen;
                    }
                }
            }
            // Ready: publish what this run taught us.
            inRun = false;
            double secs = Math.max(1e-9, (System.nanoTime() - runStart) / 1e9);
            own.putLong(base + DONE, done);
            own.putLong(base + RATE, Double.doubleToRawLongBits(done / secs));
            job.context().wmb();
            return new Iterations(LoopStatus.READY, low + (int) count, low + (int) count - 1);
        }

        private Iterations give(LoopStatus status, int r, long first, long c) {
            done += c;
            return new Iterations(status, iteration(r, first), iteration(r, first + c - 1));
        }

        @Override
        public void free() {
            live();
            job.barrier();
            freed = true;
            byId.remove(id);
        }

        @Override
        public void useEvaluatedSpeed() {
            live();
            if (speed == null) {
                throw Errors.fail(SmiError.PARAM, "call SMI_Evaluate_speed first");
            }
            useSpeed = true;
        }

        @Override
        public void setParam(double kNew, int minL, int minR, int maxL, int maxR) {
            live();
            if (kNew < 0 || minL < 0 || minR < 0 || maxL < 0 || maxR < 0) {
                throw Errors.fail(SmiError.PARAM, "loop parameters must not be negative (0 = SMI_NO_CHANGE)");
            }
            k = kNew == 0 ? k : kNew;
            minLocal = minL == 0 ? minLocal : minL;
            minRemote = minR == 0 ? minRemote : minR;
            maxLocal = maxL == 0 ? maxLocal : maxL;
            maxRemote = maxR == 0 ? maxRemote : maxR;
        }

        @Override
        public void setHelpParam(int dist) {
            live();
            if (dist < 0 && dist != HELP_ONLY_SMP) {
                throw Errors.fail(SmiError.PARAM, "maxHelpDist must be >= 0 or SMI_HELP_ONLY_SMP");
            }
            maxHelpDist = dist;
        }
    }
}
