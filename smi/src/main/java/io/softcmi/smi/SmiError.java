package io.softcmi.smi;

/**
 * The return values of SMI functions (manual §17.1), without {@code SMI_SUCCESS}: a call that
 * succeeds returns normally. Carried by {@link SmiException}; {@link Smi#memtest} returns one.
 */
public enum SmiError {
    /** {@code SMI_SUCCESS} (0): only returned by status-returning calls such as {@code memtest}. */
    SUCCESS(0),
    /** {@code SMI_ERR_OTHER} (1): an error not further stated. */
    OTHER(1),
    /** {@code SMI_ERR_NOINIT} (2): called before {@code SMI_Init} or after {@code SMI_Finalize}. */
    NOINIT(2),
    /** {@code SMI_ERR_PARAM} (3): a wrong parameter. */
    PARAM(3),
    /** {@code SMI_ERR_BADADR} (4): an address (region, offset) that cannot be used. */
    BADADR(4),
    /** {@code SMI_ERR_MAPFAILED} (5): mapping a segment failed. */
    MAPFAILED(5),
    /** {@code SMI_ERR_NODEVICE} (6): no facility to create shared regions (no CMI node). */
    NODEVICE(6),
    /** {@code SMI_ERR_NOSEGMENT} (7): no further segment could be allocated. */
    NOSEGMENT(7),
    /** {@code SMI_ERR_NOMEM} (8): not enough memory. */
    NOMEM(8),
    /** {@code SMI_ERR_NOTIMPL} (9): the functionality is not implemented. */
    NOTIMPL(9),
    /** {@code SMI_ERR_TRANSFER} (10): a memory transfer failed and has to be repeated. */
    TRANSFER(10),
    /** {@code SMI_ERR_PENDING} (11): the memory transfer is not yet completed. */
    PENDING(11),
    /** {@code SMI_ERR_NOTPOSTED} (12): the transfer was enqueued but not yet started. */
    NOTPOSTED(12);

    private final int code;

    SmiError(int code) {
        this.code = code;
    }

    /**
     * The numeric value of the manual.
     *
     * @return the code of §17.1
     */
    public int code() {
        return code;
    }

    /**
     * The manual's name.
     *
     * @return e.g. {@code SMI_ERR_PARAM}
     */
    public String specName() {
        return this == SUCCESS ? "SMI_SUCCESS" : "SMI_ERR_" + name();
    }
}
