/**
 * Segment notifications (a softcmi extension, not part of libcmi): {@link
 * io.softcmi.cmi.notify.Notifications#notify} wakes the creator of a segment, locally or from
 * another node, ordered after the sender's earlier stores. See {@code docs/notifications.md}.
 */
package io.softcmi.cmi.notify;
