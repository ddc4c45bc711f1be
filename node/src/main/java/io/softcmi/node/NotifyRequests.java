package io.softcmi.node;

import io.softcmi.wire.DataProtocol;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * Serves the NOTIFY requests of one {@link DataConnection} once their token was admitted: the
 * flags that make a notification conditional ({@link DataProtocol#FLAG_AFTER_OK},
 * {@link DataProtocol#FLAG_IF_WAITING}), the hold while the creator is far behind reading its
 * notices ({@link NotificationService#mustWait}), and the delivery and its reply. Loop thread
 * only; one per connection, allocated with it.
 */
final class NotifyRequests {
    private final HomeAccess access;
    private final byte[] clientNode;
    private final DataPathStats stats;
    /** The connection's replies. */
    private final ReplyOutput out;
    private final RequestTraffic traffic;

    NotifyRequests(HomeAccess access, byte[] clientNode, DataPathStats stats, ReplyOutput out, RequestTraffic traffic) {
        this.access = access;
        this.clientNode = clientNode;
        this.stats = stats;
        this.out = out;
        this.traffic = traffic;
    }

    /**
     * Serves the admitted NOTIFY whose header is at {@code p} in {@code in}: answers it (delivered,
     * or not delivered for its flags), or holds it.
     *
     * @param resume the connection's resume task, run once the held notification's creator caught up
     * @return true when held: nothing answered or counted, and the connection reads nothing more
     *         and serves the whole request again after {@code resume}
     */
    boolean serve(ByteBuffer in, int p, long requestId, long segmentId, long offset, long value, Runnable resume) {
        if ((in.get(p + 5) & DataProtocol.FLAG_AFTER_OK) != 0 && out.lastStatus() != DataProtocol.STATUS_OK) {
            out.reply(out.lastStatus(), requestId, 0); // the store it follows failed: no notification about it
            return false;
        }
        if ((in.get(p + 5) & DataProtocol.FLAG_IF_WAITING) != 0 && !waiting(in, p, requestId, segmentId, in.getLong(p + 64))) {
            return false;
        }
        if (access.notificationMustWait(segmentId, resume)) {
            stats.notificationHolds.increment();
            return true;
        }
        access.notifyCreator(segmentId, offset, value, clientNode);
        traffic.count(DataProtocol.OP_NOTIFY, 0);
        // The reply's value tells the sender how far behind the creator is (its unwritten notices).
        out.reply(DataProtocol.STATUS_OK, requestId, access.notificationBacklog(segmentId));
        return false;
    }

    /**
     * {@link DataProtocol#FLAG_IF_WAITING}: whether the waiters word at {@code waitersOffset} is
     * not zero, read after a full fence (so after the store served just before, the home's side
     * of the Dekker handshake with a waiter that counts itself, fences and re-checks). Answers
     * the request itself when it is not delivered: OK with value 0 for no waiters, or the access
     * error for a word the token may not read.
     */
    private boolean waiting(ByteBuffer in, int p, long requestId, long segmentId, long waitersOffset) {
        byte status = access.check(clientNode, segmentId, in.getLong(p + 24), in.getLong(p + 32), in.getLong(p + 40),
            HomeAccess.accessOf(DataProtocol.OP_GET), waitersOffset, 8);
        if (status != DataProtocol.STATUS_OK) {
            stats.errors.increment();
            out.reply(status, requestId, 0);
            return false;
        }
        MemorySegment word = access.slice(segmentId, waitersOffset, 8);
        if (word == null) {
            out.reply(DataProtocol.STATUS_OK, requestId, 0); // reclaimed: nobody waits there any more
            return false;
        }
        VarHandle.fullFence();
        if (word.get(ValueLayout.JAVA_LONG_UNALIGNED, 0) != 0) {
            return true;
        }
        traffic.count(DataProtocol.OP_NOTIFY, 0);
        out.reply(DataProtocol.STATUS_OK, requestId, 0);
        return false;
    }
}
