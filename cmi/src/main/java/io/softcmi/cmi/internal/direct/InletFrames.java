package io.softcmi.cmi.internal.direct;

/**
 * The wire format of direct delivery (docs/notifications.md, "Direct delivery"), little-endian.
 * One TCP connection joins two processes and carries frames both ways: each process's routes send
 * on it to the other's inlets, and the other's inlet acknowledges on it. Every frame is a
 * {@value #HEADER}-byte header ({@code int op, int inlet, long offset, long length, long
 * notifyOffset, long value, long ackSeq, long ackRefusals, long 0}) and {@code length} payload bytes:
 * <ul>
 *   <li>{@link #HELLO}, sent first by each end: the sender's node address and its own inlet
 *       endpoint ({@code host:port}), each after an {@code int} length; the end that opened the
 *       connection adds the other server's 16-byte key, from the inlet address it connected
 *       with (the other end drops a connection without it);</li>
 *   <li>{@link #OPEN}: proves the sender holds an inlet's address (payload: its key);</li>
 *   <li>{@link #PUT} and {@link #PUT_NOTIFY}: a store, and a store then a notification; the only
 *       frames counted, from 1, per direction;</li>
 *   <li>{@link #ACK}: {@code offset} is a frame number and {@code value} a status: 0 says every
 *       frame up to it is stored; a non-zero status (a {@code CmiAccessError} ordinal plus one)
 *       says that frame was refused, and comes before any acknowledgement that covers it.</li>
 * </ul>
 *
 * <p><b>Acknowledgements ride on every frame.</b> {@code ackSeq} and {@code ackRefusals} tell the
 * receiver that every frame it sent on this connection up to {@code ackSeq} is stored, with
 * {@code ackRefusals} refusals among all it sent so far (written as {@link #ACK}s before this
 * frame). A receiver that has read as many refusals counts those frames acknowledged: in a
 * ping-pong the answer acknowledges the message it answers, and the inlet writes no
 * acknowledgement of its own.
 */
final class InletFrames {
    static final int HEADER = 64;
    static final int HELLO = 1;
    static final int OPEN = 2;
    static final int PUT = 3;
    static final int PUT_NOTIFY = 4;
    static final int ACK = 5;
    /** Longest HELLO or OPEN payload accepted (a node address and an endpoint; a key). */
    static final int MAX_CONTROL = 1024;

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
