package io.softcmi.cmi.notify;

/**
 * A {@link Notifications#putAndNotifyPipelined} (or {@link Notifications#putPipelined}) whose
 * requests are on their way to the home and whose replies may not have come yet. {@link #await}
 * gives its outcome: what {@link Notifications#putAndNotify} (or {@code CmiMapping.put}) would
 * have thrown. Several threads may {@link #await} one at once, or one after another: each waits
 * for the replies itself and each gets the same outcome (an exception of the same error, or
 * none).
 */
public interface PendingPut {
    /** @return whether both replies have come (then {@link #await} does not wait) */
    boolean done();

    /**
     * Waits for the home's replies (at most the context's remote timeout). Safe to call from
     * several threads at once; every call reports the same outcome.
     *
     * @throws io.softcmi.cmi.CmiAccessException what the store or the notification would throw
     *         alone (TOKEN, PERM, TRANSIENT, SINVAL); if the store failed, no notification was
     *         delivered
     */
    void await();

    /**
     * @return after {@link #await} returned: the creator's unwritten notices at the home when
     *         this notification was queued (how far behind the creator is reading); 0 where
     *         nothing was pipelined (a local attach, a cached import), from a home that does
     *         not report it, and for a {@code DirectRoute}'s sends (the creator's process answers
     *         them itself)
     */
    long creatorBacklog();
}
