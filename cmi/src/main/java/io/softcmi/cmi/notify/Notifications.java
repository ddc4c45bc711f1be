package io.softcmi.cmi.notify;

import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.internal.NotificationSupport;

/**
 * Segment notifications: wake the creator of a segment without anyone spinning on remote
 * memory. An extension of softcmi, not a libcmi call (see {@code docs/notifications.md}).
 *
 * <p>A process that can store into a segment (a writable local attach, or an import whose token
 * allows WRITE) sends {@code (offset, value)}; the segment's creator context receives it in its
 * {@link NotificationInbox}. The notification is delivered after every store the sender made
 * earlier through the same mapping from the same thread. A notification for a segment whose
 * creator is gone is dropped, and the sender is not told.
 */
public final class Notifications {
    private Notifications() {
    }

    /**
     * Sends a notification to the creator of {@code mapping}'s segment.
     *
     * @param mapping a local attach or an attached import of the segment
     * @param offset an offset in the segment; {@code offset + 8} must be within it (no alignment
     *        needed; through an import it is checked as an 8-byte store; a local attach checks the
     *        detach, the range and a read-only attach only, not {@code cmi_enb} nor a range in flux,
     *        for nothing is stored)
     * @param value the value to deliver
     * @throws IllegalStateException if the mapping is detached
     * @throws IndexOutOfBoundsException if {@code offset} is out of range
     * @throws io.softcmi.cmi.CmiAccessException PERM through a read-only attach or a token
     *         without WRITE; ENABLE, TOKEN, TRANSIENT for an import as for a store
     * @throws io.softcmi.cmi.CmiException INIT if the context's connection to its node is gone
     */
    public static void notify(CmiMapping mapping, long offset, long value) {
        NotificationSupport.send(mapping, offset, value);
    }

    /**
     * Stores {@code src} at {@code offset} through {@code mapping}, then sends the notification
     * {@code (notifyOffset, value)}: the same as {@code mapping.put(offset, src)} followed by
     * {@link #notify}, and delivered with the same ordering guarantee, but through an uncached
     * import it costs one round trip to the home instead of two when {@code src} fits one data
     * request (1 MiB): the store and the notification go out back to back and the home drops
     * the notification if the store failed.
     *
     * @param mapping a local attach or an attached import of the segment
     * @param offset where the data goes
     * @param src the data
     * @param notifyOffset the notification's offset (as for {@link #notify})
     * @param value the value to deliver
     * @throws IllegalStateException if the mapping is detached
     * @throws IndexOutOfBoundsException if either range is out of the segment
     * @throws io.softcmi.cmi.CmiAccessException what the store or the notification would throw
     *         alone; if the store fails, no notification is delivered
     * @throws io.softcmi.cmi.CmiException INIT if the context's connection to its node is gone
     */
    public static void putAndNotify(CmiMapping mapping, long offset, java.lang.foreign.MemorySegment src, long notifyOffset,
            long value) {
        NotificationSupport.putAndSend(mapping, offset, src, notifyOffset, value);
    }

    /**
     * Stores {@code src} at {@code offset}, then notifies the segment's creator with
     * {@code (notifyOffset, value)} only if the 8-byte word at {@code waitersOffset} is not zero
     * after the store: a wake-up that costs nothing when nobody sleeps. The creator's waiting
     * threads count themselves in that word, issue a full fence and re-check their condition
     * before they block in the inbox; the word is read after the store and a full fence (at the
     * home, in the same round trip as the store, on an uncached import), so either the waiter
     * sees the store or the sender sees the waiter (a Dekker handshake). On a cached import the
     * store is released with {@code mb} before the word is read.
     *
     * @param mapping a local attach or an attached import of the segment
     * @param offset where to store
     * @param src the bytes to store
     * @param notifyOffset the notification's offset (checked as an 8-byte store)
     * @param value the value to deliver
     * @param waitersOffset the waiters word (checked as an 8-byte load)
     * @throws IllegalStateException if the mapping is detached
     * @throws IndexOutOfBoundsException if an offset is out of range
     * @throws io.softcmi.cmi.CmiAccessException as for the store and the load; a store that fails
     *         sends no notification
     */
    public static void putAndNotifyIfWaiting(CmiMapping mapping, long offset, java.lang.foreign.MemorySegment src,
            long notifyOffset, long value, long waitersOffset) {
        NotificationSupport.putAndSendIfWaiting(mapping, offset, src, notifyOffset, value, waitersOffset);
    }

    /**
     * {@link #putAndNotify} without waiting for the home's replies: returns once both requests
     * are written to the data connection ({@code src} may be reused at once), and the returned
     * {@link PendingPut} gives the outcome later. The home serves a connection's requests in
     * order, so puts and notifications sent this way and later from the same thread through the
     * same mapping keep their order, with each other and with synchronous calls. Only through an
     * uncached import, for a non-empty {@code src}, with the store and the notification on the
     * same home connection (a store larger than one request, 1 MiB, goes in chunks, all written
     * before this returns, the notification after the last); otherwise (a local attach, a cached
     * import) it does {@link #putAndNotify} and returns a completed {@link PendingPut}. The caller's thread must
     * stay enabled ({@code cmi_enb}) until it has awaited the result.
     *
     * @param mapping a local attach or an attached import of the segment
     * @param offset where the data goes
     * @param src the data
     * @param notifyOffset the notification's offset (as for {@link #notify})
     * @param value the value to deliver
     * @return the pending outcome
     * @throws IllegalStateException if the mapping is detached
     * @throws IndexOutOfBoundsException if either range is out of the segment
     * @throws io.softcmi.cmi.CmiAccessException PERM, ENABLE, TOKEN (no token) found before
     *         sending; the home's verdict comes from {@link PendingPut#await}
     * @throws io.softcmi.cmi.CmiException INIT if the context's connection to its node is gone
     */
    public static PendingPut putAndNotifyPipelined(CmiMapping mapping, long offset, java.lang.foreign.MemorySegment src,
            long notifyOffset, long value) {
        return NotificationSupport.putAndSendPipelined(mapping, offset, src, notifyOffset, value);
    }

    /**
     * {@link #putAndNotifyPipelined} without the notification: a store that returns once its
     * requests are written to the data connection ({@code src} may be reused at once), its
     * outcome given later by the returned {@link PendingPut} ({@link PendingPut#creatorBacklog}
     * is 0). For a receiver that polls the memory itself, or that a later notification on the
     * same mapping tells about it: the home serves a connection's requests in order, so a store
     * sent this way is in the segment before any notification or store the same thread sends
     * later through the same mapping. Only through an uncached import, for a non-empty
     * {@code src} on one home connection (a store larger than one request, 1 MiB, goes in
     * chunks, all written before this returns); otherwise (a local attach, a cached import) it
     * stores synchronously ({@link CmiMapping#put}) and returns a completed {@link PendingPut}.
     * The caller's thread must stay enabled ({@code cmi_enb}) until it has awaited the result.
     *
     * @param mapping a local attach or an attached import of the segment
     * @param offset where the data goes
     * @param src the data
     * @return the pending outcome
     * @throws IllegalStateException if the mapping is detached
     * @throws IndexOutOfBoundsException if the range is out of the segment
     * @throws io.softcmi.cmi.CmiAccessException PERM, ENABLE, TOKEN (no token) found before
     *         sending; the home's verdict comes from {@link PendingPut#await}
     * @throws io.softcmi.cmi.CmiException INIT if the context's connection to its node is gone
     */
    public static PendingPut putPipelined(CmiMapping mapping, long offset, java.lang.foreign.MemorySegment src) {
        return NotificationSupport.putPipelined(mapping, offset, src);
    }

    /**
     * Serves {@code mapping}'s segment from this process: senders that hold the returned inlet's
     * {@link DirectInlet#address()} store and notify through a {@link DirectRoute} straight into
     * this process's attach, which hands their notifications to the context's inbox (inline
     * handlers run on the context's inlet thread then, one notification at a time with those
     * of the control reader). The context serves its inlets on one thread and one TCP port,
     * bound to its node's data address, opened with the first inlet.
     *
     * @param mapping a writable local attach of a segment this context created
     * @return the inlet
     * @throws io.softcmi.cmi.CmiException INVAL if {@code mapping} is not a local attach made by
     *     this library (an import, an extensible segment) or is detached, NOTSUPP if its node
     *     speaks TLS to other nodes (direct delivery is plain TCP)
     * @throws io.softcmi.cmi.CmiAccessException PERM for a read-only attach, TRANSIENT if no port
     *     could be opened
     */
    public static DirectInlet openInlet(CmiMapping mapping) {
        return io.softcmi.cmi.internal.DirectDelivery.openInlet(mapping);
    }

    /**
     * A route from {@code context} to the inlet at {@code inletAddress}, connecting to its
     * process if this context has no connection there yet (within the context's remote timeout).
     *
     * @param context the sending context
     * @param inletAddress {@link DirectInlet#address()} of an inlet
     * @return the route
     * @throws io.softcmi.cmi.CmiException INVAL if {@code inletAddress} is not an inlet's address
     *     or {@code context} not a softcmi context, NOTSUPP if the context's node speaks TLS to
     *     other nodes
     * @throws io.softcmi.cmi.CmiAccessException TRANSIENT if the inlet's process cannot be reached
     */
    public static DirectRoute routeTo(CmiContext context, byte[] inletAddress) {
        return io.softcmi.cmi.internal.DirectDelivery.routeTo(context, inletAddress);
    }

    /**
     * The inbox of a context: notifications for the segments it created.
     *
     * @param context a context of this process
     * @return its inbox (the same object on every call)
     * @throws io.softcmi.cmi.CmiException INVAL if {@code context} is not a softcmi context
     */
    public static NotificationInbox inbox(CmiContext context) {
        return NotificationSupport.inbox(context);
    }
}
