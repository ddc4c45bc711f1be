package io.softcmi.vmmc.samples;

/** The manual's {@code RandomChain <num_nodes> <nwords> <iterations>}: the pattern A-&gt;B, B-&gt;C, ..., X-&gt;A over randomly chosen nodes (A is the master). */
public final class RandomChain {
    private RandomChain() {
    }

    /**
     * Runs the sample.
     *
     * @param args {@code <num_nodes> <nwords> <iterations>}
     */
    public static void main(String[] args) {
        MultiNode.run(MultiNode.Pattern.CHAIN, RandomChain.class, args);
    }
}
