package io.softcmi.smi.samples;

import io.softcmi.smi.ProgressCounter;
import io.softcmi.smi.RegionType;
import io.softcmi.smi.Smi;
import io.softcmi.smi.SmiMutex;
import io.softcmi.smi.SmiRegion;
import java.util.Set;

/**
 * The SMI test {@code sync} (manual §14.4.5): barriers, a mutex-protected shared counter (spread
 * and with locality), trylock, and progress counters. Rank 0 prints the results and
 * {@code sync: OK}.
 * <pre>
 *   bin/smirun -np 4 -nodes local:a local:a local:b local:b -- io.softcmi.smi.samples.Sync [increments]
 * </pre>
 */
public final class Sync {
    private Sync() {
    }

    /**
     * Runs the sample.
     *
     * @param args optional: increments per process (default 200)
     */
    public static void main(String[] args) {
        int k = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        SampleMain.run(args, smi -> {
            int n = smi.procSize();
            int me = smi.procRank();
            for (int i = 0; i < 50; i++) {
                smi.barrier();
            }
            report(smi, "sync: 50 barriers passed by " + n + " processes");
            SmiRegion counter = smi.createShreg(RegionType.UNDIVIDED, Smi.initReginfo(smi.pageSize(), n - 1), Set.of());
            for (SmiMutex m : new SmiMutex[] {smi.mutexInit(), smi.mutexInitWithLocality(0)}) {
                for (int i = 0; i < k; i++) {
                    m.lock();
                    // A plain read-modify-write: correct only if the lock excludes the others.
                    counter.putLong(0, counter.getLong(0) + 1);
                    m.unlock();
                }
                smi.barrier();
                long v = counter.getLong(0);
                report(smi, "sync: mutex " + m.id() + ": counter = " + v);
                if (v != (long) n * k) {
                    throw new IllegalStateException("mutex " + m.id() + " let increments collide: " + v + " != " + n * k);
                }
                smi.barrier();
                if (me == 0) {
                    counter.putLong(0, 0);
                }
                smi.barrier();
                if (me == 0) {
                    m.lock();
                }
                smi.barrier();
                boolean got = m.trylock();
                if (me != 0 && got) {
                    throw new IllegalStateException("trylock succeeded on a held mutex");
                }
                smi.barrier();
                if (me == 0) {
                    m.unlock();
                }
                m.destroy();
            }
            ProgressCounter pc = smi.initPc();
            for (int step = 1; step <= 5; step++) {
                pc.increment(1);
                pc.waitIndividual((me + 1) % n, step);
            }
            pc.waitCollective(ProgressCounter.OWN_PC);
            report(smi, "sync: progress counter of process " + (n - 1) + " = " + pc.get(n - 1));
            smi.barrier();
            pc.reset();
            if (pc.get((me + 1) % n) != 0) {
                throw new IllegalStateException("progress counter not reset");
            }
            counter.free();
            report(smi, "sync: OK");
        });
    }

    private static void report(Smi smi, String line) {
        if (smi.procRank() == 0) {
            System.out.println(line);
        }
    }
}
