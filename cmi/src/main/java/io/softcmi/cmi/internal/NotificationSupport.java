package io.softcmi.cmi.internal;

import io.softcmi.cmi.CmiAccessError;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.notify.NotificationInbox;
import io.softcmi.wire.ControlMessage;
import java.util.Objects;

/**
 * The engine side of {@code io.softcmi.cmi.notify.Notifications}: sends a notification on the
 * path its mapping takes (a one-way control message for a local attach, {@code OP_NOTIFY} on
 * the data connection for an import) and finds a context's inbox. Not an API: use
 * {@code Notifications}.
 */
public final class NotificationSupport {
    private NotificationSupport() {
    }

    /**
     * Sends a notification (see {@code Notifications.notify}).
     *
     * @param mapping a local or remote mapping made by this library
     * @param offset offset in the segment
     * @param value value
     */
    public static void send(CmiMapping mapping, long offset, long value) {
        Errors.checkNotNull(mapping, "mapping");
        switch (mapping) {
            case LocalMapping m -> {
                if (!m.attached()) {
                    throw new IllegalStateException("segment " + m.segmentId + " is detached");
                }
                Objects.checkFromIndexSize(offset, 8, m.size());
                if (m.readOnly) {
                    throw Errors.access(CmiAccessError.PERM, m.segmentId, offset);
                }
                // The sender's earlier stores are in the shared mapping already; the socket write
                // that carries this message orders them before the creator reads it.
                m.context.sendOneWay(new ControlMessage.Notify(m.segmentId, offset, value));
                m.context.expectNotice();
            }
            case RemoteMapping m -> {
                m.sendNotification(offset, value);
                m.context.expectNotice();
            }
            default -> throw Errors.fail(CmiError.INVAL, "not a mapping made by softcmi: " + mapping);
        }
    }

    /**
     * Stores {@code src} at {@code offset}, then sends a notification (see
     * {@code Notifications.putAndNotify}): one round trip to the home for an uncached import.
     *
     * @param mapping a local or remote mapping made by this library
     * @param offset where the data goes
     * @param src the data
     * @param notifyOffset the notification's offset
     * @param value the notification's value
     */
    public static void putAndSend(CmiMapping mapping, long offset, java.lang.foreign.MemorySegment src, long notifyOffset,
            long value) {
        Errors.checkNotNull(mapping, "mapping");
        Errors.checkNotNull(src, "src");
        if (mapping instanceof RemoteMapping m) {
            m.putThenNotify(offset, src, notifyOffset, value);
            m.context.expectNotice();
        } else {
            Objects.checkFromIndexSize(notifyOffset, 8, mapping.size()); // before anything is stored, as remotely
            mapping.put(offset, src);
            send(mapping, notifyOffset, value);
        }
    }

    /** A completed {@link io.softcmi.cmi.notify.PendingPut}. */
    private static final io.softcmi.cmi.notify.PendingPut DONE = new io.softcmi.cmi.notify.PendingPut() {
        @Override
        public boolean done() {
            return true;
        }

        @Override
        public void await() {
            // nothing left to wait for
        }

        @Override
        public long creatorBacklog() {
            return 0;
        }
    };

    /**
     * Stores {@code src} at {@code offset}, then sends a notification, without waiting for the
     * home's replies where the mapping allows it (see {@code Notifications.putAndNotifyPipelined}).
     *
     * @param mapping a local or remote mapping made by this library
     * @param offset where the data goes
     * @param src the data
     * @param notifyOffset the notification's offset
     * @param value the notification's value
     * @return the pending outcome
     */
    public static io.softcmi.cmi.notify.PendingPut putAndSendPipelined(CmiMapping mapping, long offset,
            java.lang.foreign.MemorySegment src, long notifyOffset, long value) {
        Errors.checkNotNull(mapping, "mapping");
        Errors.checkNotNull(src, "src");
        if (mapping instanceof RemoteMapping m) {
            io.softcmi.cmi.notify.PendingPut p = m.startPutThenNotify(offset, src, notifyOffset, value);
            if (p != null) {
                return p;
            }
        }
        putAndSend(mapping, offset, src, notifyOffset, value);
        return DONE;
    }

    /**
     * Stores {@code src} at {@code offset} without waiting for the home's replies where the
     * mapping allows it (see {@code Notifications.putPipelined}); otherwise stores synchronously.
     *
     * @param mapping a local or remote mapping made by this library
     * @param offset where the data goes
     * @param src the data
     * @return the pending outcome
     */
    public static io.softcmi.cmi.notify.PendingPut putPipelined(CmiMapping mapping, long offset,
            java.lang.foreign.MemorySegment src) {
        Errors.checkNotNull(mapping, "mapping");
        Errors.checkNotNull(src, "src");
        if (mapping instanceof RemoteMapping m) {
            io.softcmi.cmi.notify.PendingPut p = m.startPut(offset, src);
            if (p != null) {
                return p;
            }
        }
        mapping.put(offset, src);
        return DONE;
    }

    /**
     * Stores {@code src} at {@code offset}, then sends a notification only if the word at
     * {@code waitersOffset} is not zero (see {@code Notifications.putAndNotifyIfWaiting}).
     */
    public static void putAndSendIfWaiting(CmiMapping mapping, long offset, java.lang.foreign.MemorySegment src,
            long notifyOffset, long value, long waitersOffset) {
        Errors.checkNotNull(mapping, "mapping");
        Errors.checkNotNull(src, "src");
        if (waitersOffset < 0) {
            throw new IndexOutOfBoundsException("waiters offset " + waitersOffset);
        }
        if (mapping instanceof RemoteMapping m) {
            m.putThenNotify(offset, src, notifyOffset, value, waitersOffset);
            m.context.expectNotice();
        } else {
            // Both words' ranges before anything is stored, as remotely (RemoteMapping#putThenNotify).
            Objects.checkFromIndexSize(waitersOffset, 8, mapping.size());
            Objects.checkFromIndexSize(notifyOffset, 8, mapping.size());
            mapping.put(offset, src);
            // The store is in the shared mapping; a full fence, then the waiters word: a waiter
            // counts itself there, fences and re-checks, so one of the two sees the other.
            java.lang.invoke.VarHandle.fullFence();
            if (mapping.getLong(waitersOffset) != 0) {
                send(mapping, notifyOffset, value);
            }
        }
    }

    /**
     * A context's inbox (see {@code Notifications.inbox}).
     *
     * @param context a context made by this library
     * @return its inbox
     */
    public static NotificationInbox inbox(CmiContext context) {
        if (Errors.checkNotNull(context, "context") instanceof ContextImpl c) {
            return c.notifications();
        }
        throw Errors.fail(CmiError.INVAL, "not a context made by softcmi: " + context);
    }
}
