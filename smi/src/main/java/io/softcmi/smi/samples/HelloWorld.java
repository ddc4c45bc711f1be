package io.softcmi.smi.samples;

import io.softcmi.smi.Smi;

/**
 * The SMI test {@code helloworld} (manual §14.4.1): initializes SMI, asks for the number of
 * processes and its own rank, prints a greeting and ends.
 * <pre>
 *   bin/smirun -np 4 -- io.softcmi.smi.samples.HelloWorld
 * </pre>
 */
public final class HelloWorld {
    private HelloWorld() {
    }

    /**
     * Runs the sample.
     *
     * @param args none
     */
    public static void main(String[] args) {
        SampleMain.run(args, smi -> {
            System.out.println("Hello world from process " + smi.procRank() + " of " + smi.procSize() + " on node "
                + smi.nodeRank() + " (" + smi.nodeName() + "), local rank " + smi.localProcRank() + " of "
                + smi.localProcSize());
        });
    }
}
