package io.softcmi.smi.internal;

import io.softcmi.smi.ProgressCounter;
import io.softcmi.smi.SmiError;

/**
 * {@code SMI_*_PC}: progress counters. Each process's value is a word in its own control segment,
 * written only by it (store barrier, then the store: the value releases the stores made before
 * the increment). Waiting for another process's value polls that
 * word with {@link Backoff} (at most one round trip per 200 µs once the wait is long); every 256
 * polls it runs the job's wait check, which fails it with {@code OTHER} if that process entered
 * {@code SMI_Finalize} below the value ({@link Departures}).
 */
public final class Counters {
    private final Job job;
    private int nextId;

    /** @param job the job */
    public Counters(Job job) {
        this.job = job;
    }

    /**
     * {@code SMI_Init_PC} (collective).
     *
     * @return the counter
     */
    public ProgressCounter create() {
        if (nextId >= Layout.MAX_PCS) {
            throw Errors.fail(SmiError.NOMEM, "at most " + Layout.MAX_PCS + " progress counters per job");
        }
        int id = nextId++;
        long off = Layout.CTRL_PC + 8L * id;
        job.ownControl().map().putLong(off, 0);
        job.barrier();
        return new Pc(id, off);
    }

    private final class Pc implements ProgressCounter {
        private final int id;
        private final long off;
        private long value;

        Pc(int id, long off) {
            this.id = id;
            this.off = off;
        }

        @Override
        public int id() {
            return id;
        }

        @Override
        public void reset() {
            job.barrier();
            value = 0;
            job.ownControl().map().putLong(off, 0);
            job.barrier();
        }

        @Override
        public void increment(long val) {
            if (val < 0) {
                throw Errors.fail(SmiError.PARAM, "a progress counter never decreases: increment " + val);
            }
            value += val;
            // Release first: a process that sees the new value reads the data written before it
            // (the store is local memory, seen by the others at once; a wmb after it let them
            // read stale data from this process's cached imports until it completed).
            job.context().wmb();
            job.ownControl().map().putLong(off, value);
        }

        @Override
        public long get(int rank) {
            Errors.checkRank(rank, job.size(), "proc_rank");
            if (rank == job.rank()) {
                return value;
            }
            job.context().rmb();
            return job.control(rank).getLong(off);
        }

        @Override
        public void waitIndividual(int rank, long target) {
            Errors.checkRank(rank, job.size(), "proc_rank");
            long t = target == OWN_PC ? value : target;
            Backoff b = new Backoff();
            for (int n = 0; get(rank) < t; n++) {
                if ((n & 255) == 255) {
                    // A rank that entered SMI_Finalize below the target never reaches it.
                    job.checkWait(rank, () -> get(rank) >= t);
                }
                b.idle();
            }
            job.context().rmb();
        }

        @Override
        public void waitCollective(long target) {
            for (int r = 0; r < job.size(); r++) {
                waitIndividual(r, target);
            }
        }
    }
}
