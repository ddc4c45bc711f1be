package io.softcmi.vmmc.samples;

/** The manual's {@code PPBandwidth <iterations> <start_nwords> <end_nwords>}: average bandwidth of ping-pong communication between 2 nodes. */
public final class PPBandwidth {
    private PPBandwidth() {
    }

    /**
     * Runs the sample.
     *
     * @param args {@code <iterations> <start_nwords> <end_nwords>}
     */
    public static void main(String[] args) {
        Bandwidth.run(Bandwidth.Pattern.PINGPONG, PPBandwidth.class, args);
    }
}
