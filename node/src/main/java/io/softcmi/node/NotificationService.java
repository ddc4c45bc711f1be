package io.softcmi.node;

import io.softcmi.cmi.internal.HandleCodec;
import io.softcmi.cmi.internal.NodeAddressImpl;
import io.softcmi.wire.ControlMessage;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

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
 *
 * <p>The sender's node: a remote sender's ticket proves only its node id; the full address
 * (where that node listens) is learnt from the imports other nodes made of this node's segments
 * (a sender must have imported the segment), and sent as the id alone if not known.
 *
 * <p>Back-pressure: a creator's writer closes the session past {@link SessionWriter#MAX_PENDING}
 * unwritten notices, so a delivery to a creator with more than {@link #HIGH_WATER} waits for the
 * writer to catch up; a notification is never refused for the creator's backlog. A local
 * delivery waits parked (in steps of {@link #BACKOFF_NANOS}, at most {@link #MAX_WAIT_NANOS}),
 * which holds up the sender's control session only; a creator that stopped reading altogether
 * still ends as before. A remote sender's notification arrives on a data-path I/O loop, which
 * serves many connections and must never wait: the loop asks {@link #mustWait} first and, if so,
 * stops serving (and reading) that sender's data connection, without a thread, until the
 * creator's backlog is down to {@link #RESUME_AT}; TCP then holds the sender back.
 */
final class NotificationService {
    /** Unwritten notices to one creator above which a delivery waits. */
    static final int HIGH_WATER = SessionWriter.MAX_PENDING / 2;
    /** One step of that wait. */
    static final long BACKOFF_NANOS = 50_000;
    /** Longest that wait. */
    static final long MAX_WAIT_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** Unwritten notices at which a data connection held back by {@link #mustWait} is served again. */
    static final int RESUME_AT = HIGH_WATER / 2;
    private final ConcurrentHashMap<Long, Session.Notifier> creators = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<NodeId, byte[]> addresses = new ConcurrentHashMap<>();
    private final byte[] thisNode;

    /** A node id as a map key. */
    private record NodeId(long hi, long lo) {
        static NodeId of(byte[] id) {
            ByteBuffer b = ByteBuffer.wrap(id);
            return new NodeId(b.getLong(0), b.getLong(8));
        }
    }

    /** @param thisNode this node's address, the sender of local notifications */
    NotificationService(NodeAddressImpl thisNode) {
        this.thisNode = thisNode.toBytes();
    }

    /** Another node imported one of this node's segments: remember where it is. @param address its address bytes */
    void learnNode(byte[] address) {
        try {
            NodeAddressImpl a = (NodeAddressImpl) HandleCodec.nodeAddress(address);
            addresses.put(NodeId.of(a.nodeId()), address.clone());
        } catch (RuntimeException malformed) {
            // The import itself validated the address; nothing to learn from a bad one.
        }
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
     * The remote path's back-pressure, asked before {@link #deliver}: whether the segment's
     * creator has more than {@link #HIGH_WATER} unwritten notices. If so, {@code resume} runs
     * once (on the thread that writes the creator's notices, or ends its session) when at most
     * {@link #RESUME_AT} are left, and the caller holds the notification back until then.
     *
     * @param segmentId the segment's id at this node
     * @param resume what to run when the creator has caught up; must not block
     * @return true if the caller must wait for {@code resume}; false to deliver now (no creator,
     *     or the backlog is below the line)
     */
    boolean mustWait(long segmentId, Runnable resume) {
        Session.Notifier creator = creators.get(segmentId);
        return creator != null && creator.pending() > HIGH_WATER && creator.whenBelow(RESUME_AT, resume);
    }

    /**
     * The remote path: queues a notification to the creator of the segment, or drops it if the
     * creator is gone. Never blocks (the creator's {@link SessionWriter} writes it) and never
     * refuses: the caller held it back while the creator was behind ({@link #mustWait}).
     *
     * @param segmentId the segment's id at this node
     * @param offset the offset the sender named
     * @param value the sender's value
     * @param senderNodeId id of the sender's node (what its ticket proves)
     * @return whether the notification was queued for a live creator
     */
    Delivery deliver(long segmentId, long offset, long value, byte[] senderNodeId) {
        byte[] sender = senderNodeId.length == NodeAddressImpl.ID_LENGTH
            ? addresses.getOrDefault(NodeId.of(senderNodeId), senderNodeId) : senderNodeId;
        Session.Notifier creator = creators.get(segmentId);
        if (creator == null) {
            return Delivery.NO_CREATOR;
        }
        creator.send(new ControlMessage.NotificationNotice(segmentId, offset, value, sender));
        return Delivery.QUEUED;
    }

    /**
     * @param segmentId a segment's id at this node
     * @return its creator's unwritten notices (0 without a creator): what the reply to a remote
     *         notification carries as its value
     */
    long backlog(long segmentId) {
        Session.Notifier creator = creators.get(segmentId);
        return creator == null ? 0 : creator.pending();
    }

    /** What became of a remote notification. */
    enum Delivery {
        /** Queued for the creator. */
        QUEUED,
        /** The segment has no live creator: dropped (docs/notifications.md). */
        NO_CREATOR
    }

    private boolean send(long segmentId, long offset, long value, byte[] senderAddress) {
        Session.Notifier creator = creators.get(segmentId);
        if (creator == null) {
            return false;
        }
        if (creator.pending() > HIGH_WATER) {
            long deadline = System.nanoTime() + MAX_WAIT_NANOS;
            while (creator.pending() > HIGH_WATER && System.nanoTime() - deadline < 0) {
                LockSupport.parkNanos(BACKOFF_NANOS);
            }
        }
        creator.send(new ControlMessage.NotificationNotice(segmentId, offset, value, senderAddress));
        return true;
    }

    /**
     * The local path: a process of this node notifies on a segment it has attached.
     *
     * @param n the one-way request
     * @return whether it was queued
     */
    boolean deliverLocal(ControlMessage.Notify n) {
        return send(n.segId(), n.offset(), n.value(), thisNode);
    }
}
