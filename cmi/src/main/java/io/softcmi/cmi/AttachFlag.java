package io.softcmi.cmi;

/**
 * The spec's attach flags for {@code seg_at} ({@link CmiContext#segAt(CmiSegment,
 * java.util.Set)}). An empty set means a read/write attach.
 */
public enum AttachFlag {
    /**
     * {@code CMI_SEG_READ}: attach for reading only; any store through the mapping throws a
     * {@link CmiAccessException} with {@link CmiAccessError#PERM}.
     */
    READ;

    /**
     * The spec's name of this constant.
     *
     * @return {@code "CMI_SEG_"} followed by the constant's name, e.g. {@code "CMI_SEG_READ"}
     */
    public String specName() {
        return "CMI_SEG_" + name();
    }
}
