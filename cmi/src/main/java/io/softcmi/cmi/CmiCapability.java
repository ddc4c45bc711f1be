package io.softcmi.cmi;

/**
 * The spec's platform capability flags ({@code CMI_CAP_*}) found in the context, answered by
 * {@link CmiContext#capabilities()}.
 */
public enum CmiCapability {
    /**
     * {@code CMI_CAP_EXTENSIBLE_SEGMENTS}: segments may be created with {@link
     * SegFlag#EXTENSIBLE}.
     */
    EXTENSIBLE_SEGMENTS,
    /**
     * {@code CMI_CAP_NODE_SPECIFIC_TOKEN}: access tokens may be bound to one node address with
     * {@code tok_new}.
     */
    NODE_SPECIFIC_TOKEN,
    /**
     * {@code CMI_CAP_WRITE_THROUGH}: segments may be exported with {@link
     * ExportAttr#WRITE_THROUGH}.
     */
    WRITE_THROUGH,
    /**
     * {@code CMI_CAP_MIXED_CONSISTENCY}: client-consistent and client-inconsistent segments may
     * coexist.
     */
    MIXED_CONSISTENCY;

    /**
     * The spec's name of this constant.
     *
     * @return {@code "CMI_CAP_"} followed by the constant's name, e.g. {@code "CMI_CAP_EXTENSIBLE_SEGMENTS"}
     */
    public String specName() {
        return "CMI_CAP_" + name();
    }
}
