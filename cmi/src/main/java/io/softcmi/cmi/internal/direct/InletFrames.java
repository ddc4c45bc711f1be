package io.softcmi.cmi.internal.direct;

/**
 * The wire format of direct delivery (docs/notifications.md, "Direct delivery"), little-endian.
 * A route sends frames of a {@value #HEADER}-byte header ({@code int op, int inlet, long offset,
 * long length, long notifyOffset, long value, long ackConnection, long ackSeq, long ackRefusals})
 * and {@code length} payload bytes. {@link #OPEN} proves the sender holds an inlet's address
 * (payload: the key, the route connection's random id, the sender's node address and its own
 * inlet's endpoint {@code host:port}, each of the last two after an {@code int} length; the
 * endpoint is empty if it serves none) and is not counted; every
 * {@link #PUT} and {@link #PUT_NOTIFY} is, from 1. The inlet answers with {@value #ACK}-byte
 * records {@code (long seq, int status, int 0)}: status 0 says every frame up to {@code seq} is
 * stored; a non-zero status (a {@code CmiAccessError} ordinal plus one) says frame {@code seq}
 * was refused, and comes before the acknowledgement that covers it.
 *
 * <p><b>Acknowledgements ride on the answers too.</b> A frame's {@code ackConnection},
 * {@code ackSeq} and {@code ackRefusals} (0 when unknown) tell the receiving process about the
 * frames it sent on its route connection {@code ackConnection} to the sender's inlet: every one
 * up to {@code ackSeq} is stored, and {@code ackRefusals}
 * refusal records were written for them on that connection. A process that has read that many
 * refusal records may count the frames as acknowledged without reading its acknowledgement
 * channel: in a ping-pong the answer carries the acknowledgement, and the sender's wait for it
 * costs no system call.
 */
final class InletFrames {
    static final int HEADER = 64;
    static final int ACK = 16;
    static final int OPEN = 1;
    static final int PUT = 2;
    static final int PUT_NOTIFY = 3;
    /** Longest OPEN payload accepted (the key, a node address and an endpoint). */
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
