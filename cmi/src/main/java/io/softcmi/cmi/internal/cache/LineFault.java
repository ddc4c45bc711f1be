package io.softcmi.cmi.internal.cache;

/**
 * A cache request the home refused or the network lost, carried to the caller that maps it to
 * the spec's error (an access error for a miss, {@code CMI_ERR_STORE} for a write-back).
 * Without a stack trace: it is raised on the data path.
 */
public final class LineFault extends RuntimeException {
    private static final long serialVersionUID = 1L;
    /** The status: an access error's wire code, or negative for network failure or timeout. */
    public final int status;
    /** The first segment offset concerned. */
    public final long offset;
    /** True for a failed write-back, false for a failed fill. */
    public final boolean writeBack;

    /**
     * @param status the failure status
     * @param offset the first segment offset concerned
     * @param writeBack whether a write-back failed
     */
    public LineFault(int status, long offset, boolean writeBack) {
        super("cache " + (writeBack ? "write-back" : "fill") + " at offset " + offset + " failed with status " + status,
            null, false, false);
        this.status = status;
        this.offset = offset;
        this.writeBack = writeBack;
    }
}
