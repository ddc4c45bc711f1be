package io.softcmi.smi.run;

import io.softcmi.smi.Smi;

/**
 * A test program: rank 0 sets a signal callback for a signal of rank 1, which never comes
 * ({@code never}) or which rank 1 sends just before it finalizes ({@code sent}); every rank then
 * finalizes at once, prints {@code rank R finalized}, waits a second (a callback thread left
 * running would still run meanwhile) and ends normally.
 */
public final class PendingCallbackRank {
    private PendingCallbackRank() {
    }

    /**
     * @param args {@code never} or {@code sent}
     * @throws InterruptedException if interrupted
     */
    public static void main(String[] args) throws InterruptedException {
        Smi smi = Smi.init(args);
        int me = smi.procRank();
        if (me == 0) {
            smi.signalSetCallback(1, () -> System.out.println("rank 0: callback ran"));
        }
        smi.barrier();
        if (me == 1 && args[0].equals("sent")) {
            smi.signalSend(0);
        }
        smi.close();
        System.out.println("rank " + me + " finalized");
        System.out.flush();
        Thread.sleep(1_000);
    }
}
