package io.softcmi.cmi;

/**
 * The spec's export attributes for {@code seg_exp} ({@link CmiContext#segExp(CmiSegment,
 * java.util.Set)}). An empty set means a cacheable export.
 */
public enum ExportAttr {
    /**
     * {@code CMI_SEG_WRITE_THROUGH}: remote stores are uncached and synchronous, reflected on
     * the home node at once. A segment cannot be imported as cacheable and write-through at the
     * same time. {@link CmiError#NOTSUPP} without {@link CmiCapability#WRITE_THROUGH}.
     */
    WRITE_THROUGH;

    /**
     * The spec's name of this constant.
     *
     * @return {@code "CMI_SEG_"} followed by the constant's name, e.g. {@code "CMI_SEG_WRITE_THROUGH"}
     */
    public String specName() {
        return "CMI_SEG_" + name();
    }
}
