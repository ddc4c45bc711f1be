package io.softcmi.smi;

import java.util.Objects;

/**
 * A failed SMI call: the Java form of a non-{@code SMI_SUCCESS} return, carried by
 * {@link #error()}.
 */
public class SmiException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The spec error code. */
    private final SmiError error;

    /**
     * Creates an exception for a failed SMI call.
     *
     * @param error the spec error code
     * @param message what failed; the exception's message is prefixed by {@code "SMI_ERR_X: "}
     */
    public SmiException(SmiError error, String message) {
        super(Objects.requireNonNull(error, "error").specName() + ": " + message);
        this.error = error;
    }

    /**
     * Creates an exception for a failed SMI call caused by another exception (usually a CMI one).
     *
     * @param error the spec error code
     * @param message what failed
     * @param cause the underlying cause
     */
    public SmiException(SmiError error, String message, Throwable cause) {
        super(Objects.requireNonNull(error, "error").specName() + ": " + message, cause);
        this.error = error;
    }

    /**
     * The error code the C function would have returned.
     *
     * @return the code, never null
     */
    public SmiError error() {
        return error;
    }
}
