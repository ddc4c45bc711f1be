package io.softcmi.smi.samples;

import io.softcmi.smi.SignalHandle;
import io.softcmi.smi.Smi;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The SMI test {@code signal} (manual §14.4.6): a signal passed around the ring of processes,
 * {@code SIGNAL_BCAST} from rank 0 with {@code SIGNAL_ANY} waits, and a signal callback. Rank 0
 * prints {@code signal: OK}.
 * <pre>
 *   bin/smirun -np 4 -nodes local:a local:a local:b local:b -- io.softcmi.smi.samples.Signal
 * </pre>
 */
public final class Signal {
    private Signal() {
    }

    /**
     * Runs the sample.
     *
     * @param args none
     */
    public static void main(String[] args) {
        SampleMain.run(args, smi -> {
            int n = smi.procSize();
            int me = smi.procRank();
            int rounds = 3;
            if (n > 1) {
                for (int i = 0; i < rounds; i++) {
                    if (me == 0) {
                        smi.signalSend(1);
                        smi.signalWait(n - 1);
                    } else {
                        smi.signalWait(me - 1);
                        smi.signalSend((me + 1) % n);
                    }
                }
                report(smi, "signal: " + rounds + " rounds around the ring of " + n);
                if (me == 0) {
                    smi.signalSend(Smi.SIGNAL_BCAST);
                } else {
                    smi.signalWait(Smi.SIGNAL_ANY);
                }
                report(smi, "signal: broadcast received by " + (n - 1) + " processes");
                AtomicInteger ran = new AtomicInteger();
                SignalHandle h = null;
                if (me != 0) {
                    h = smi.signalSetCallback(0, ran::incrementAndGet);
                }
                smi.barrier();
                if (me == 0) {
                    smi.signalSend(Smi.SIGNAL_BCAST);
                } else {
                    smi.signalJoinCallback(h);
                    if (ran.get() != 1 || !h.done()) {
                        throw new IllegalStateException("signal callback did not run");
                    }
                }
                smi.barrier();
                report(smi, "signal: callbacks ran on " + (n - 1) + " processes");
            }
            report(smi, "signal: OK");
        });
    }

    private static void report(Smi smi, String line) {
        if (smi.procRank() == 0) {
            System.out.println(line);
        }
    }
}
