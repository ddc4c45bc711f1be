package io.softcmi.vmmc.samples;

/** The manual's {@code RandomOne2All <num_nodes> <nwords> <iterations>}: the pattern A-&gt;others, others-&gt;B, B-&gt;others, ..., others-&gt;A over randomly chosen nodes. */
public final class RandomOne2All {
    private RandomOne2All() {
    }

    /**
     * Runs the sample.
     *
     * @param args {@code <num_nodes> <nwords> <iterations>}
     */
    public static void main(String[] args) {
        MultiNode.run(MultiNode.Pattern.ONE2ALL, RandomOne2All.class, args);
    }
}
