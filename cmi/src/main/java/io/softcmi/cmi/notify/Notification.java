package io.softcmi.cmi.notify;

import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.NodeAddress;

/**
 * One segment notification, as the segment's creator receives it (notification extension; not
 * a libcmi call, see {@code docs/notifications.md}).
 *
 * @param segment the segment it was sent on, as the creator's context names it
 * @param offset the offset the sender named
 * @param value the sender's value
 * @param sender the sender's node (the creator's own node for a local sender). The home learns
 *        a remote sender's address from that node's import of the segment; should it not know
 *        it, the address carries the node id only (no host or port)
 */
public record Notification(CmiSegment segment, long offset, long value, NodeAddress sender) {
}
