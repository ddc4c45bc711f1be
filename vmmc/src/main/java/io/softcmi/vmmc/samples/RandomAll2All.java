package io.softcmi.vmmc.samples;

/** The manual's {@code RandomAll2All <num_nodes> <nwords> <iterations>}: the pattern All-&gt;All, repeated iterations times. */
public final class RandomAll2All {
    private RandomAll2All() {
    }

    /**
     * Runs the sample.
     *
     * @param args {@code <num_nodes> <nwords> <iterations>}
     */
    public static void main(String[] args) {
        MultiNode.run(MultiNode.Pattern.ALL2ALL, RandomAll2All.class, args);
    }
}
