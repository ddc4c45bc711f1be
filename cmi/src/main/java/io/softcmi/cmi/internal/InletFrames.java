package io.softcmi.cmi.internal;

/**
 * The wire format of direct delivery (docs/notifications.md, "Direct delivery"), little-endian.
 * A route sends frames of a {@value #HEADER}-byte header ({@code int op, int inlet, long offset,
 * long length, long notifyOffset, long value}) and {@code length} payload bytes. {@link #OPEN}
 * proves the sender holds an inlet's address (payload: the key, then the sender's node address)
 * and is not counted; every {@link #PUT} and {@link #PUT_NOTIFY} is, from 1. The inlet answers
 * with {@value #ACK}-byte records {@code (long seq, int status, int 0)}: status 0 says every frame up
 * to {@code seq} is done; a non-zero status (a {@code CmiAccessError} ordinal plus one) says
 * frame {@code seq} was refused, and comes before the acknowledgement that covers it.
 */
final class InletFrames {
    static final int HEADER = 40;
    static final int ACK = 16;
    static final int OPEN = 1;
    static final int PUT = 2;
    static final int PUT_NOTIFY = 3;
    /** Longest OPEN payload accepted (the key and a node address). */
    static final int MAX_OPEN = 1024;

    private InletFrames() {
    }

    /** @return the status for a refusal with {@code e} */
    static int status(io.softcmi.cmi.CmiAccessError e) {
        return e.ordinal() + 1;
    }

    /** @return the refusal a non-zero status stands for */
    static io.softcmi.cmi.CmiAccessError error(int status) {
        io.softcmi.cmi.CmiAccessError[] all = io.softcmi.cmi.CmiAccessError.values();
        return status >= 1 && status <= all.length ? all[status - 1] : io.softcmi.cmi.CmiAccessError.TRANSIENT;
    }
}
