package io.softcmi.smi.internal;

import io.softcmi.cmi.CmiMapping;
import io.softcmi.smi.SmiError;
import io.softcmi.smi.SmiMutex;

/**
 * {@code SMI_Mutex_*}: MCS queue locks (Mellor-Crummey and Scott, "Algorithms for scalable
 * synchronization on shared-memory multiprocessors", ACM TOCS 9(1), 1991). The tail of a mutex's
 * queue is a word in its home process's control segment, swapped with {@code atm_cas} at the
 * home; each process's queue node lives in its own control segment. A waiter waits on its own
 * {@code LOCKED} word (local memory); the holder hands the lock to its successor by posting into
 * the successor's queue node. No process polls remote memory. A waiter whose predecessor entered
 * {@code SMI_Finalize} without handing the lock on gets {@code OTHER} ({@link Departures}); the
 * mutex stays unusable (its holder is gone).
 */
public final class Mutexes {
    private final Job job;
    private int nextId;

    /** @param job the job */
    public Mutexes(Job job) {
        this.job = job;
    }

    /**
     * {@code SMI_Mutex_init} / {@code SMI_Mutex_init_with_locality} (collective).
     *
     * @param home the process whose control segment holds the queue tail, or -1 to spread mutexes over all processes
     * @return the mutex
     */
    public SmiMutex create(int home) {
        if (home != -1) {
            Errors.checkRank(home, job.size(), "prank");
        }
        if (nextId >= Layout.MAX_MUTEXES) {
            throw Errors.fail(SmiError.NOMEM, "at most " + Layout.MAX_MUTEXES + " mutexes per job");
        }
        int id = nextId++;
        int h = home == -1 ? id % job.size() : home;
        job.barrier();
        return new Mcs(id, h);
    }

    private final class Mcs implements SmiMutex {
        private static final long LOCKED = 0;
        private static final long NEXT = 8;
        private final int id;
        private final int home;
        private final long tail;
        private final long qnode;
        private boolean held;
        private boolean destroyed;

        Mcs(int id, int home) {
            this.id = id;
            this.home = home;
            this.tail = Layout.CTRL_MUTEX_TAIL + 8L * id;
            this.qnode = Layout.CTRL_QNODE + 16L * id;
        }

        @Override
        public int id() {
            return id;
        }

        private void live() {
            if (destroyed) {
                throw Errors.fail(SmiError.PARAM, "mutex " + id + " was destroyed");
            }
        }

        @Override
        public void lock() {
            live();
            if (held) {
                throw Errors.fail(SmiError.PARAM, "mutex " + id + " is already held by this process");
            }
            CmiMapping own = job.ownControl().map();
            long me = job.rank() + 1L;
            own.putLong(qnode + NEXT, 0);
            own.putLong(qnode + LOCKED, 1);
            job.context().wmb();
            long pred = job.swap(job.control(home), tail, me, 0);
            if (pred != 0) {
                int p = (int) pred - 1;
                job.waker().post(job.control(p), Layout.CTRL_QNODE + 16L * id + NEXT, me);
                // Fails with OTHER if the predecessor entered SMI_Finalize without handing the lock on.
                job.waker().await(qnode + LOCKED, v -> v == 0, p);
            }
            held = true;
            job.context().mb();
        }

        @Override
        public boolean trylock() {
            live();
            if (held) {
                return false;
            }
            CmiMapping own = job.ownControl().map();
            own.putLong(qnode + NEXT, 0);
            own.putLong(qnode + LOCKED, 0);
            job.context().wmb();
            if (job.context().atmCas(job.control(home), tail, 0, job.rank() + 1L) == 0) {
                held = true;
                job.context().mb();
                return true;
            }
            return false;
        }

        @Override
        public void unlock() {
            live();
            if (!held) {
                throw Errors.fail(SmiError.PARAM, "mutex " + id + " is not held by this process");
            }
            held = false;
            job.context().mb();
            CmiMapping own = job.ownControl().map();
            long me = job.rank() + 1L;
            long next = own.getLong(qnode + NEXT);
            if (next == 0) {
                if (job.context().atmCas(job.control(home), tail, me, 0) == me) {
                    return;
                }
                // A successor swapped itself in but has not linked yet: it will, into our queue node.
                next = job.waker().await(qnode + NEXT, v -> v != 0);
            }
            int n = (int) next - 1;
            job.waker().post(job.control(n), Layout.CTRL_QNODE + 16L * id + LOCKED, 0);
        }

        @Override
        public void destroy() {
            live();
            job.barrier();
            destroyed = true;
        }
    }
}
