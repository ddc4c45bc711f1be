package io.softcmi.smi.bench;

import io.softcmi.smi.Smi;
import io.softcmi.smi.SmiMutex;
import java.util.Arrays;

/**
 * Latency of {@code SMI_Barrier} and of mutex lock/unlock, against the raw CMI {@code atm_cas}
 * round trip to another process's segment measured in the same run. Run under smirun, the ranks
 * spread over two daemons:
 * <pre>
 *   bin/smirun -np 2 -nodes local:a local:b -- io.softcmi.smi.bench.SyncLatency [ops]
 * </pre>
 * Rank 0 prints p50 and p99 in microseconds of: its atm_cas round trip to the last rank, a
 * barrier (every rank taking part), an uncontended lock+unlock of a mutex homed on the last rank,
 * and lock+unlock while every rank contends for one spread mutex.
 */
public final class SyncLatency {
    private SyncLatency() {
    }

    /**
     * Runs the benchmark.
     *
     * @param args {@code [ops]} per measurement (default 2000)
     */
    public static void main(String[] args) {
        int ops = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        try (Smi smi = Smi.init(args)) {
            int me = smi.procRank();
            int last = smi.procSize() - 1;
            long[] t = new long[ops];
            // Raw CMI round trip from rank 0 to the last rank's control segment.
            if (me == 0) {
                for (int i = 0; i < ops / 4; i++) {
                    smi.rawAtmCas(last);
                }
                for (int i = 0; i < ops; i++) {
                    long t0 = System.nanoTime();
                    smi.rawAtmCas(last);
                    t[i] = System.nanoTime() - t0;
                }
                print(smi, "atm_cas round trip to rank " + last, t);
            }
            smi.barrier();
            for (int i = 0; i < ops / 4; i++) {
                smi.barrier();
            }
            for (int i = 0; i < ops; i++) {
                long t0 = System.nanoTime();
                smi.barrier();
                t[i] = System.nanoTime() - t0;
            }
            print(smi, "SMI_Barrier, " + smi.procSize() + " ranks", t);
            SmiMutex far = smi.mutexInitWithLocality(last);
            if (me == 0) {
                for (int i = 0; i < ops; i++) {
                    long t0 = System.nanoTime();
                    far.lock();
                    far.unlock();
                    t[i] = System.nanoTime() - t0;
                }
                print(smi, "lock+unlock, uncontended, mutex on rank " + last, t);
            }
            smi.barrier();
            SmiMutex shared = smi.mutexInit();
            smi.barrier();
            for (int i = 0; i < ops; i++) {
                long t0 = System.nanoTime();
                shared.lock();
                shared.unlock();
                t[i] = System.nanoTime() - t0;
            }
            print(smi, "lock+unlock, " + smi.procSize() + " ranks contending", t);
            smi.barrier();
            shared.destroy();
            far.destroy();
        }
    }

    private static void print(Smi smi, String what, long[] t) {
        if (smi.procRank() != 0) {
            return;
        }
        long[] s = t.clone();
        Arrays.sort(s);
        System.out.printf("%-48s p50 %8.1f us   p99 %8.1f us   mean %8.1f us%n", what, s[s.length / 2] / 1e3,
            s[(int) (s.length * 0.99)] / 1e3, Arrays.stream(s).average().orElse(0) / 1e3);
    }
}
