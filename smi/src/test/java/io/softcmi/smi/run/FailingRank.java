package io.softcmi.smi.run;

import io.softcmi.smi.Smi;

/**
 * A test program: after SMI_Init, the last rank either calls {@code SMI_Abort(3)} ({@code abort};
 * {@code abortSlowCallback}: every rank's watchdog callback then sleeps, 4 s on the last rank, 2 s
 * on the others),
 * dies on the spot with exit code 5 ({@code crash}), or switches its watchdog off and hangs
 * ({@code hang}: no more heartbeats), or finalizes normally ({@code finish}: {@code SMI_Finalize}
 * makes two barriers, which the others pass, then it is gone; with {@code finishInFinalize} the
 * others pass one of them and wait in their own {@code SMI_Finalize}); with {@code sleep} every rank just
 * sleeps. The other ranks wait in a barrier that never completes, so only smirun (or their
 * watchdog) can end them. Every rank registers a watchdog callback that prints {@code callback ran}.
 */
public final class FailingRank {
    private FailingRank() {
    }

    /**
     * @param args {@code abort}, {@code abortSlowCallback}, {@code crash}, {@code hang}, {@code finish}, {@code finishInFinalize} or {@code sleep}
     */
    public static void main(String[] args) {
        Smi smi = Smi.init(args);
        int rank = smi.procRank();
        boolean last = rank == smi.procSize() - 1;
        smi.watchdogCallback(() -> {
            System.out.println("rank " + rank + ": callback ran");
            System.out.flush();
            if (args[0].equals("abortSlowCallback")) {
                // The others see the abort while the last rank is still in its callback, and have
                // time to see it twice (their wait's check, their watchdog's beat) during theirs.
                sleep(last ? 4_000 : 2_000);
            }
        });
        smi.barrier();
        System.out.println("rank " + smi.procRank() + " ready");
        System.out.flush();
        if (smi.procRank() == smi.procSize() - 1) {
            if (args[0].startsWith("abort")) {
                smi.abort(3);
            }
            if (args[0].equals("hang")) {
                smi.watchdog(Smi.WATCHDOG_OFF);
                sleepForever();
            }
            if (args[0].equals("crash")) {
                Runtime.getRuntime().halt(5);
            }
            if (args[0].startsWith("finish")) {
                int me = smi.procRank();
                smi.close();
                System.out.println("rank " + me + " finalized");
                return;
            }
        }
        if (args[0].equals("finish")) {
            // The two barriers of the last rank's SMI_Finalize.
            smi.barrier();
            smi.barrier();
        }
        if (args[0].equals("finishInFinalize")) {
            // One barrier, then SMI_Finalize: its first barrier is the last rank's second, so
            // these ranks wait at their last one with the watchdog thread already stopped.
            smi.barrier();
            smi.close();
            throw new IllegalStateException("SMI_Finalize completed without the finalized rank");
        }
        if (args[0].equals("sleep")) {
            sleepForever();
        }
        smi.barrier();
        throw new IllegalStateException("a barrier completed without the failed rank");
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleepForever() {
        while (true) {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
