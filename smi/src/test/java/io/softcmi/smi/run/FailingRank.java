package io.softcmi.smi.run;

import io.softcmi.smi.Smi;

/**
 * A test program: after SMI_Init, the last rank either calls {@code SMI_Abort(3)} ({@code abort})
 * or dies on the spot with exit code 5 ({@code crash}); the other ranks wait in a barrier that
 * never completes, so only smirun (or their watchdog) can end them.
 */
public final class FailingRank {
    private FailingRank() {
    }

    /**
     * @param args {@code abort} or {@code crash}
     */
    public static void main(String[] args) {
        Smi smi = Smi.init(args);
        smi.barrier();
        System.out.println("rank " + smi.procRank() + " ready");
        System.out.flush();
        if (smi.procRank() == smi.procSize() - 1) {
            if (args[0].equals("abort")) {
                smi.abort(3);
            }
            Runtime.getRuntime().halt(5);
        }
        smi.barrier();
        throw new IllegalStateException("a barrier completed without the failed rank");
    }
}
