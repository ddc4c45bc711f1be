package io.softcmi.cmi.notify;

import java.lang.foreign.MemorySegment;

/**
 * A sender's way to one {@link DirectInlet}: pipelined stores and notifications that go straight
 * to the segment's creator process (docs/notifications.md, "Direct delivery"). Obtained with
 * {@link Notifications#routeTo}; a softcmi extension, not a libcmi call. The routes of one
 * context to the inlets of one process share one connection, and the inlet serves it in order:
 * a route's stores and notifications, sent from one thread, arrive in the order sent, each
 * notification after the stores sent before it. There is no order between a route and the home
 * path ({@link Notifications#putAndNotifyPipelined} on an import of the same segment): await
 * every {@link PendingPut} of one before using the other. Thread-safe.
 */
public interface DirectRoute extends AutoCloseable {
    /**
     * Stores {@code src} at {@code offset} of the inlet's segment, then delivers the notification
     * {@code (notifyOffset, value)} to its creator's inbox: {@link Notifications#putAndNotifyPipelined}
     * through the creator's process. Returns once both are written to the connection ({@code src}
     * may be reused at once).
     *
     * @param offset where the data goes
     * @param src the data (may be empty)
     * @param notifyOffset the notification's offset ({@code notifyOffset + 8} within the segment)
     * @param value the value to deliver
     * @return the pending outcome: {@link PendingPut#await} throws TOKEN if the inlet was closed
     *     (nothing stored, nothing delivered), TRANSIENT if the creator's process could not be
     *     reached or did not acknowledge within the context's remote timeout
     * @throws IndexOutOfBoundsException if either range is outside the segment
     * @throws IllegalStateException if the route is closed
     * @throws io.softcmi.cmi.CmiAccessException TRANSIENT if the connection failed and connecting again fails
     */
    PendingPut putAndNotify(long offset, MemorySegment src, long notifyOffset, long value);

    /**
     * {@link #putAndNotify} without the notification: a store that returns once written to the
     * connection; a later notification through this route comes after it.
     *
     * @param offset where the data goes
     * @param src the data
     * @return the pending outcome (as for {@link #putAndNotify})
     * @throws IndexOutOfBoundsException if the range is outside the segment
     * @throws IllegalStateException if the route is closed
     * @throws io.softcmi.cmi.CmiAccessException TRANSIENT if the connection failed and connecting again fails
     */
    PendingPut put(long offset, MemorySegment src);

    /** @return the size of the inlet's segment in bytes */
    long size();

    /** Stops using the route (the shared connection stays for the others). Idempotent. */
    @Override
    void close();
}
