package io.softcmi.wire;

/**
 * Bytes from outside (a frame, a handle, a token, a node address) do not follow the format.
 *
 * <p>Every decoder in softcmi throws this instead of failing with an arbitrary runtime exception,
 * so a receiver can answer with an error or close the connection and keep serving.
 */
public final class WireFormatException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what is wrong with the input
     */
    public WireFormatException(String message) {
        super(message);
    }
}
