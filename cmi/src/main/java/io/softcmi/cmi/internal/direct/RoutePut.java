package io.softcmi.cmi.internal.direct;

import io.softcmi.cmi.internal.Errors;
import io.softcmi.cmi.notify.PendingPut;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The pending outcome of one frame a {@link Route} sent: its acknowledgement or refusal by the
 * other process's inlet. Several threads may {@link #await} it at once (its sender, and a thread
 * that needs it answered before a frame of its own); each waits for the answer itself (the
 * inlet's thread serving its inlet meanwhile) and each gets the same outcome: the first to look
 * after the answer settles it, the others take what it settled. The connection forgets a
 * refusal once it is settled here, so a thread that looks later still sees it.
 */
final class RoutePut implements PendingPut {
    /** Marks {@link #outcome} settled; the low bits are the frame's status. */
    private static final int SETTLED = 1 << 16;
    private static final VarHandle OUTCOME;

    static {
        try {
            OUTCOME = MethodHandles.lookup().findVarHandle(RoutePut.class, "outcome", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final RouteConnection sentOn;
    private final long seq;
    private final DirectEndpoints endpoints;
    private final int inletId;
    private final long offset;
    /** 0 until settled, then {@link #SETTLED} with the frame's status (0: stored) in the low bits. */
    private volatile int outcome;

    RoutePut(RouteConnection sentOn, long seq, DirectEndpoints endpoints, int inletId, long offset) {
        this.sentOn = sentOn;
        this.seq = seq;
        this.endpoints = endpoints;
        this.inletId = inletId;
        this.offset = offset;
    }

    @Override
    public boolean done() {
        return outcome != 0 || sentOn.done(seq);
    }

    /**
     * Waits for the answer (at most the remote timeout) and reports it.
     *
     * @throws io.softcmi.cmi.CmiAccessException the frame's refusal (TOKEN, SINVAL), or TRANSIENT
     *     if the connection failed or the deadline passed first; the same error to every caller
     */
    @Override
    public void await() {
        int settled = outcome;
        if (settled == 0) {
            sentOn.awaitAnswer(seq, endpoints.deadline());
            settled = settle(sentOn.outcome(seq));
        }
        int status = settled & ~SETTLED;
        if (status != 0) {
            throw Errors.access(InletFrames.error(status), inletId, offset);
        }
    }

    /** Settles the outcome as {@code status} unless another thread settled it first. @return the settled outcome */
    private int settle(int status) {
        int mine = SETTLED | status;
        int witness = (int) OUTCOME.compareAndExchange(this, 0, mine);
        if (witness != 0) {
            return witness;
        }
        if (status != 0) {
            sentOn.forgetRefusal(seq);
        }
        return mine;
    }

    @Override
    public long creatorBacklog() {
        return 0;
    }
}
