package io.softcmi.vmmc.samples;

/** The manual's {@code OnewayBandwidth <iterations> <start_nwords> <end_nwords>}: average bandwidth of one node continuously pumping data to the other. */
public final class OnewayBandwidth {
    private OnewayBandwidth() {
    }

    /**
     * Runs the sample.
     *
     * @param args {@code <iterations> <start_nwords> <end_nwords>}
     */
    public static void main(String[] args) {
        Bandwidth.run(Bandwidth.Pattern.ONEWAY, OnewayBandwidth.class, args);
    }
}
