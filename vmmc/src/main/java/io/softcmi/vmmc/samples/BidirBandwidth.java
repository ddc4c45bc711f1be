package io.softcmi.vmmc.samples;

/** The manual's {@code BidirBandwidth <iterations> <start_nwords> <end_nwords>}: average bandwidth of two nodes sending data to each other simultaneously. */
public final class BidirBandwidth {
    private BidirBandwidth() {
    }

    /**
     * Runs the sample.
     *
     * @param args {@code <iterations> <start_nwords> <end_nwords>}
     */
    public static void main(String[] args) {
        Bandwidth.run(Bandwidth.Pattern.BIDIR, BidirBandwidth.class, args);
    }
}
