package io.softcmi.node;

import io.softcmi.wire.ControlMessage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Delivers segment notifications (the notification extension, {@code docs/notifications.md})
 * to the creator of the segment: the local path (a {@link ControlMessage.Notify} from a
 * process of this node) and the remote path ({@code OP_NOTIFY} on a data connection, already
 * checked there like an 8-byte store) both end here.
 *
 * <p>Keeps its own concurrent map from segment id to the creator session's notifier, so a
 * delivery takes no engine lock: the data path and the control readers call it directly. The
 * engine registers a segment when it is created and unregisters it when it is reclaimed or its
 * creator's session ends; a notification for an unregistered segment is dropped.
 */
final class NotificationService {
    private final ConcurrentHashMap<Long, Session.Notifier> creators = new ConcurrentHashMap<>();
    private final byte[] thisNode;

    NotificationService(byte[] thisNode) {
        this.thisNode = thisNode.clone();
    }

    /** A segment was created by {@code creator} (called under the engine lock). */
    void register(long segmentId, Session creator) {
        creators.put(segmentId, creator.notifier);
    }

    /** A segment was reclaimed (called under the engine lock). */
    void unregister(long segmentId) {
        creators.remove(segmentId);
    }

    /** A session ended: its segments' notifications are dropped from now on (called under the engine lock). */
    void sessionClosed(Session s) {
        for (long segmentId : s.created) {
            creators.remove(segmentId, s.notifier);
        }
    }

    /**
     * Queues a notification to the creator of the segment, or drops it if the creator is gone.
     * Never blocks (the creator's {@link SessionWriter} writes it).
     *
     * @param segmentId the segment's id at this node
     * @param offset the offset the sender named
     * @param value the sender's value
     * @param senderNode address bytes of the sender's node
     * @return whether the notification was queued for a live creator
     */
    boolean deliver(long segmentId, long offset, long value, byte[] senderNode) {
        Session.Notifier creator = creators.get(segmentId);
        if (creator == null) {
            return false;
        }
        creator.send(new ControlMessage.NotificationNotice(segmentId, offset, value, senderNode));
        return true;
    }

    /**
     * The local path: a process of this node notifies on a segment it has attached.
     *
     * @param n the one-way request
     * @return whether it was queued
     */
    boolean deliverLocal(ControlMessage.Notify n) {
        return deliver(n.segId(), n.offset(), n.value(), thisNode);
    }
}
