package io.softcmi.smi.samples;

import io.softcmi.smi.Smi;
import java.util.function.Consumer;

/**
 * How the samples run their body: {@code SMI_Init}, the body, {@code SMI_Finalize}. A body that
 * fails ends the whole application with {@code SMI_Abort(1)} instead of finalizing: finalizing is
 * collective, and the other processes would wait for this one forever.
 */
final class SampleMain {
    private SampleMain() {
    }

    static void run(String[] args, Consumer<Smi> body) {
        Smi smi = Smi.init(args);
        try {
            body.accept(smi);
        } catch (RuntimeException | Error e) {
            System.err.println("process " + smi.procRank() + " failed: " + e);
            for (StackTraceElement s : e.getStackTrace()) {
                System.err.println("\tat " + s);
            }
            smi.abort(1);
        }
        smi.close();
    }
}
