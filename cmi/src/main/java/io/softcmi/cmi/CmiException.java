package io.softcmi.cmi;

import java.util.Objects;

/**
 * A failed CMI call: the Java form of a {@code -1}/{@code NULL} return with the error that
 * {@code cmi_get_error} would report, carried by {@link #error()}. Thrown on control paths only;
 * access errors on the data path are {@link CmiAccessException}s.
 */
public class CmiException extends RuntimeException {
    /** Serialization version. */
    private static final long serialVersionUID = 1L;

    /** The spec error code. */
    private final CmiError error;

    /**
     * Creates an exception for a failed CMI call.
     *
     * @param error the spec error code, not null
     * @param message what failed; the message of the exception is this text prefixed by
     *                {@code "CMI_ERR_X: "}
     */
    public CmiException(CmiError error, String message) {
        super(Objects.requireNonNull(error, "error").specName() + ": " + message);
        this.error = error;
    }

    /**
     * Creates an exception for a failed CMI call caused by another exception (for example an
     * I/O failure talking to the node daemon).
     *
     * @param error the spec error code, not null
     * @param message what failed; prefixed by {@code "CMI_ERR_X: "} as in
     *                {@link #CmiException(CmiError, String)}
     * @param cause the underlying cause, may be null
     */
    public CmiException(CmiError error, String message, Throwable cause) {
        super(Objects.requireNonNull(error, "error").specName() + ": " + message, cause);
        this.error = error;
    }

    /**
     * The error code, as {@code cmi_get_error} would return it.
     *
     * @return the spec error code, never null
     */
    public CmiError error() {
        return error;
    }
}
