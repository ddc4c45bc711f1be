package io.softcmi.vmmc.samples;

/** The manual's {@code FetchBandwidth <iterations> <start_nwords> <end_nwords>}: average bandwidth of one node fetching data from the other continuously. */
public final class FetchBandwidth {
    private FetchBandwidth() {
    }

    /**
     * Runs the sample.
     *
     * @param args {@code <iterations> <start_nwords> <end_nwords>}
     */
    public static void main(String[] args) {
        Bandwidth.run(Bandwidth.Pattern.FETCH, FetchBandwidth.class, args);
    }
}
