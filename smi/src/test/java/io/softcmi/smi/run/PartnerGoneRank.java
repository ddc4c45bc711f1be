package io.softcmi.smi.run;

import io.softcmi.smi.ProgressCounter;
import io.softcmi.smi.Smi;
import io.softcmi.smi.SmiException;
import io.softcmi.smi.SmiMutex;
import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * A test program for two ranks: rank 0 waits on rank 1 while rank 1 leaves. Rank 1 first does
 * what the mode gives rank 0 to consume ({@code signal}, {@code signalAny}: one signal to rank 0;
 * {@code mutex}: locks the mutex; {@code pc}: increments the progress counter to 1), meets rank 0
 * at a barrier, sleeps half a second (rank 0 blocks in its wait meanwhile), then calls
 * {@code SMI_Finalize} ({@code kill}: kills itself with SIGKILL instead). Rank 0 consumes what rank
 * 1 gave (one signal, the counter at 1), then waits for more: a signal from rank 1 or from any
 * rank, the mutex, the counter at 2, or a signal callback ({@code callback}). It prints
 * {@code rank 0: MODE wait gave CODE after N ms} when the wait fails, {@code ... wait returned}
 * when it returns, then finalizes.
 */
public final class PartnerGoneRank {
    private PartnerGoneRank() {
    }

    /**
     * @param args {@code signal}, {@code signalAny}, {@code callback}, {@code mutex}, {@code pc} or {@code kill}
     * @throws Exception if the kill fails
     */
    public static void main(String[] args) throws Exception {
        String mode = args[0];
        Smi smi = Smi.init(args);
        SmiMutex mutex = smi.mutexInit();
        ProgressCounter pc = smi.initPc();
        if (smi.procRank() == 1) {
            switch (mode) {
                case "signal", "signalAny" -> smi.signalSend(0);
                case "mutex" -> mutex.lock();
                case "pc" -> pc.increment(1);
                default -> { }
            }
            smi.barrier();
            Thread.sleep(500);
            if (mode.equals("kill")) {
                killMyself();
            }
            smi.close();
            System.out.println("rank 1 finalized");
            return;
        }
        smi.barrier();
        long t0 = System.nanoTime();
        try {
            switch (mode) {
                case "signal", "kill" -> {
                    if (mode.equals("signal")) {
                        smi.signalWait(1);
                        System.out.println("rank 0: the signal sent before SMI_Finalize arrived");
                    }
                    smi.signalWait(1);
                }
                case "signalAny" -> {
                    smi.signalWait(Smi.SIGNAL_ANY);
                    System.out.println("rank 0: the signal sent before SMI_Finalize arrived");
                    smi.signalWait(Smi.SIGNAL_ANY);
                }
                case "callback" -> smi.signalJoinCallback(
                    smi.signalSetCallback(1, () -> System.out.println("rank 0: callback ran")));
                case "mutex" -> mutex.lock();
                case "pc" -> {
                    pc.waitIndividual(1, 1);
                    System.out.println("rank 0: the counter reached 1");
                    pc.waitIndividual(1, 2);
                }
                default -> throw new IllegalArgumentException(mode);
            }
            System.out.println("rank 0: " + mode + " wait returned");
        } catch (SmiException e) {
            System.out.println("rank 0: " + mode + " wait gave " + e.error() + " after "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) + " ms");
        }
        System.out.flush();
        smi.close();
    }

    private static void killMyself() throws IOException, InterruptedException {
        System.out.println("rank 1 kills itself");
        System.out.flush();
        new ProcessBuilder("kill", "-9", Long.toString(ProcessHandle.current().pid())).inheritIO().start()
            .waitFor(10, TimeUnit.SECONDS);
        Thread.sleep(10_000);
        throw new IllegalStateException("rank 1 outlived its SIGKILL");
    }
}
