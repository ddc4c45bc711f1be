package io.softcmi.smi;

import java.util.List;
import java.util.Objects;

/**
 * A failed SMI call: the Java form of a non-{@code SMI_SUCCESS} return, carried by
 * {@link #error()}.
 */
public class SmiException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The spec error code. */
    private final SmiError error;

    /** The per-handle statuses of a MemwaitAll/MemtestAll failure, else empty. */
    private SmiError[] statuses = new SmiError[0];

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
     * Creates the {@link SmiError#OTHER} of {@code SMI_MemwaitAll} and {@code SMI_MemtestAll}:
     * the status of each copy is in {@link #statuses()}.
     *
     * @param error the spec error code
     * @param message what failed
     * @param statuses the status of each handle, in the caller's order
     */
    public SmiException(SmiError error, String message, List<SmiError> statuses) {
        this(error, message);
        this.statuses = statuses.toArray(new SmiError[0]);
    }

    /**
     * The status array of {@code SMI_MemwaitAll} and {@code SMI_MemtestAll} when they fail with
     * {@link SmiError#OTHER} (the manual's "look at the individual status variables").
     *
     * @return the status of each handle; empty for every other failure
     */
    public List<SmiError> statuses() {
        return List.of(statuses);
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
