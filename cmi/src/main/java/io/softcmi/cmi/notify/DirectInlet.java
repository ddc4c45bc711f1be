package io.softcmi.cmi.notify;

/**
 * A segment that its creator's process serves itself: stores and notifications sent through a
 * {@link DirectRoute} to this inlet go straight from the sender's process to this one, which
 * writes them into its local attach of the segment and hands each notification to the context's
 * {@link NotificationInbox}, without the home node's daemon in between (docs/notifications.md,
 * "Direct delivery"). Obtained with {@link Notifications#openInlet}; a softcmi extension, not a
 * libcmi call.
 *
 * <p>Whoever holds the {@link #address()} may store into the segment through it (it carries a
 * random key, as a token's bytes carry its secret): give it only to those you would give a
 * writable token. {@link #close()} revokes it: later stores through it are refused with TOKEN.
 */
public interface DirectInlet extends AutoCloseable {
    /** @return where senders reach this inlet (host, port, inlet number, segment size and key), for {@link Notifications#routeTo} */
    byte[] address();

    /** @return stores this inlet has written, refused ones not counted (for tests and metrics) */
    long stores();

    /**
     * Stops serving: stores and notifications sent to this inlet afterwards are refused with
     * TOKEN, and so is the rest of a store whose bytes are still arriving. Returns at once; a
     * store the inlet was writing at that moment may still land ({@link #awaitClosed}).
     * Idempotent.
     */
    @Override
    void close();

    /**
     * After {@link #close()}: waits until nothing admitted before the close is still landing,
     * that is, until the inlet's thread has ended the pass over its connections it was in when
     * the inlet closed, with every store of that pass written and every notification of it
     * handed to the context's {@link NotificationInbox} (which delivers them before anything
     * handed in later). Does not wait on the inlet's own thread (a handler), which would wait
     * for itself.
     *
     * @param timeoutNanos how long to wait at most
     * @return true once so; false at the timeout, on the inlet's own thread, or if not closed
     */
    boolean awaitClosed(long timeoutNanos);
}
