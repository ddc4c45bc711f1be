package io.softcmi.vmmc;

import java.io.Serial;

/** A VMMC call failed with a negative {@link VmmcResult}: where the manual's call returns that code. */
public final class VmmcException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** The result code. */
    private final VmmcResult result;

    /**
     * Makes the exception.
     *
     * @param result the code the manual's call would return
     * @param detail what failed
     */
    public VmmcException(VmmcResult result, String detail) {
        super(result.errorStr() + (detail == null || detail.isEmpty() ? "" : " (" + detail + ")"));
        this.result = result;
    }

    /** @return the result code */
    public VmmcResult result() {
        return result;
    }
}
