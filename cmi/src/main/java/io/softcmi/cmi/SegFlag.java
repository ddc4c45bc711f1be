package io.softcmi.cmi;

/**
 * The spec's segment creation flags for {@code seg_get} ({@link CmiContext#segGet(long,
 * java.util.Set)}); also reported by {@code seg_ctl(CMI_SEG_INFO)} and {@code
 * seg_ctl(CMI_SEG_STATUS)}. An empty set means 0.
 */
public enum SegFlag {
    /**
     * {@code CMI_SEG_NORESERVE}: do not reserve swap space for the segment.
     */
    NORESERVE,
    /**
     * {@code CMI_SEG_LOCK}: prevent swapping of the segment.
     */
    LOCK,
    /**
     * {@code CMI_SEG_LARGE_PAGES}: back the segment with large pages; {@link CmiError#NOMEM} if
     * not enough are available.
     */
    LARGE_PAGES,
    /**
     * {@code CMI_SEG_EXTENSIBLE}: an extensible segment: the size given is the maximum, the
     * break point starts at 0 and is moved with {@code seg_ctl(CMI_SEG_BRK)}. {@link
     * CmiError#NOTSUPP} without {@link CmiCapability#EXTENSIBLE_SEGMENTS}.
     */
    EXTENSIBLE,
    /**
     * {@code CMI_SEG_CLIENT_CONSIST}: the client guarantees consistency across failures with
     * its own protocols; no {@code CMI_SEG_CHECK}/{@code CMI_SEG_RECO} recovery is needed.
     */
    CLIENT_CONSIST,
    /**
     * {@code CMI_SEG_CLIENT_INCONSIST}: the default mode: data touched by a failed remote
     * context must be recovered with {@code CMI_SEG_CHECK}/{@code CMI_SEG_RECO} before it can
     * be accessed again.
     */
    CLIENT_INCONSIST;

    /**
     * The spec's name of this constant.
     *
     * @return {@code "CMI_SEG_"} followed by the constant's name, e.g. {@code "CMI_SEG_NORESERVE"}
     */
    public String specName() {
        return "CMI_SEG_" + name();
    }
}
