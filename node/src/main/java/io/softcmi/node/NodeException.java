package io.softcmi.node;

import io.softcmi.cmi.CmiError;

/**
 * A control request the node refuses, with the spec error code the client will see.
 * Thrown inside the engine and turned into an error reply; it never escapes to a client thread.
 */
final class NodeException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final CmiError error;

    NodeException(CmiError error, String message) {
        super(message, null, false, false);
        this.error = error;
    }

    CmiError error() {
        return error;
    }

    static NodeException inval(String message) {
        return new NodeException(CmiError.INVAL, message);
    }

    static NodeException perm(String message) {
        return new NodeException(CmiError.PERM, message);
    }

    static NodeException nomem(String message) {
        return new NodeException(CmiError.NOMEM, message);
    }
}
