package io.softcmi.cmi;

/**
 * The spec's trace levels ({@code CMI_TRACE_LVL_*}), from the least verbose ({@link #ERROR}) to
 * the most verbose ({@link #HIGHEST}). A configured level includes all less verbose levels.
 */
public enum TraceLevel {
    /**
     * {@code CMI_TRACE_LVL_ERROR}: error conditions only.
     */
    ERROR,
    /**
     * {@code CMI_TRACE_LVL_WARNING}: errors and warnings.
     */
    WARNING,
    /**
     * {@code CMI_TRACE_LVL_INFO}: informational messages as well.
     */
    INFO,
    /**
     * {@code CMI_TRACE_LVL_DEBUG}: debugging messages as well.
     */
    DEBUG,
    /**
     * {@code CMI_TRACE_LVL_HIGHEST}: the most verbose tracing.
     */
    HIGHEST;

    /**
     * The spec's name of this constant.
     *
     * @return {@code "CMI_TRACE_LVL_"} followed by the constant's name, e.g. {@code "CMI_TRACE_LVL_ERROR"}
     */
    public String specName() {
        return "CMI_TRACE_LVL_" + name();
    }

    /**
     * Whether a message of level {@code other} is traced when this level is configured.
     *
     * @param other the level of a message
     * @return {@code true} if {@code other} is this level or less verbose than it
     */
    public boolean includes(TraceLevel other) {
        return other.ordinal() <= this.ordinal();
    }
}
