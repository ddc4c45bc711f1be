package io.softcmi.cmi;

/**
 * The spec's access error codes (the {@code si_errno} of a {@code SIGSEGV} with {@code SEGV_CMI}),
 * carried by {@link CmiAccessException#accessError()}.
 */
public enum CmiAccessError {
    /** {@code CMI_ERROR_ENABLE}: access before {@code cmi_enb(TRUE)} ({@link CmiContext#enable(boolean)}) on this thread. */
    ENABLE,
    /** {@code CMI_ERROR_TOKEN}: no token, a mismatched token or a revoked token. */
    TOKEN,
    /** {@code CMI_ERROR_PERM}: access not granted, e.g. a store through a read-only token or attach. */
    PERM,
    /** {@code CMI_ERROR_SINVAL}: the exported segment is gone: deleted, or its home is dead. */
    SINVAL,
    /** {@code CMI_ERROR_UE}: uncorrectable error at the home. */
    UE,
    /** {@code CMI_ERROR_TRANSIENT}: transient network condition; the operation may be retried. */
    TRANSIENT,
    /** {@code CMI_ERROR_SEG_BRK}: beyond the break point of an extensible segment. */
    SEG_BRK,
    /** {@code CMI_ERROR_NOPAGE}: inaccessible page or granule. */
    NOPAGE,
    /** {@code CMI_ERROR_CONSIST}: address in flux after a failure, not yet recovered. */
    CONSIST;

    /**
     * The spec's name of this code.
     *
     * @return {@code "CMI_ERROR_"} followed by the constant's name, e.g. {@code "CMI_ERROR_TOKEN"}
     */
    public String specName() {
        return "CMI_ERROR_" + name();
    }
}
