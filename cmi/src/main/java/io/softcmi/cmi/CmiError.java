package io.softcmi.cmi;

/**
 * The spec's {@code cmi_error} codes: why a CMI call failed. Carried by {@link CmiException#error()}
 * and answered by {@link Cmi#lastError()} (the spec's {@code cmi_get_error}).
 */
public enum CmiError {
    /**
     * {@code CMI_ERR_INIT}: the calling thread is not associated with the context (it did not call
     * {@code cmi_ini} or {@code ini_th}, or called {@code fini}), or no CMI node could be joined.
     */
    INIT,
    /**
     * {@code CMI_ERR_INVAL}: a context, segment, handle, token, epoch, command or operand is
     * invalid.
     */
    INVAL,
    /**
     * {@code CMI_ERR_NOMEM}: out of resources (memory, reservation, segments, tokens, contexts or
     * threads).
     */
    NOMEM,
    /**
     * {@code CMI_ERR_PERM}: insufficient permissions for the operation, for example when the
     * caller is not the process that created the segment.
     */
    PERM,
    /**
     * {@code CMI_ERR_NOTSUPP}: the requested API version, command, flag or attribute is not
     * supported.
     */
    NOTSUPP,
    /**
     * {@code CMI_ERR_BOUND}: already bound: the thread is already associated with a context,
     * already has a flush epoch open, or a token was already generated for that node.
     */
    BOUND,
    /**
     * {@code CMI_ERR_RECONFIG}: the segment is being reconfigured (quiesced) and cannot be
     * attached until it is resumed.
     */
    RECONFIG,
    /**
     * {@code CMI_ERR_STORE}: stores could not be flushed to the home node (network or remote
     * failure); data may be lost or corrupt.
     */
    STORE,
    /**
     * {@code CMI_ERR_HW}: a local hardware error prevented the operation, such as flushing stores
     * to the home node.
     */
    HW;

    /**
     * The spec's name of this code.
     *
     * @return {@code "CMI_ERR_"} followed by the constant's name, e.g. {@code "CMI_ERR_INVAL"}
     */
    public String specName() {
        return "CMI_ERR_" + name();
    }
}
