package io.softcmi.cmi.internal;

import io.softcmi.wire.ControlMessage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;

/**
 * The notices (events, notifications, shutdown) a {@link NodeChannel} has read and not yet
 * handed to its listener. Whoever reads the socket queues them; the channel's reader thread alone
 * delivers them, in the order the node sent them, so the listener always runs on one thread and
 * never nests (a call the listener makes only queues more). It also keeps the
 * {@link ArrivalWindow} of their arrivals, by which the reader polls while notices come at short
 * intervals.
 */
final class NoticeInbox {
    private final ConcurrentLinkedQueue<ControlMessage> queue = new ConcurrentLinkedQueue<>();
    /** When the reader polls because notices have been arriving at short intervals (reader thread only). */
    private final ArrivalWindow arrivals = ArrivalWindow.fromProperties();
    private volatile Consumer<ControlMessage> listener = m -> { };
    /** Set while the reader thread runs the listener (it does not read meanwhile). */
    private volatile boolean delivering;

    /** @param onNotice receives every notice, on the reader thread */
    void listen(Consumer<ControlMessage> onNotice) {
        this.listener = onNotice;
    }

    /** Queues a notice just read (by a caller or the reader, under the channel's read lock). */
    void add(ControlMessage notice) {
        queue.add(notice);
    }

    /** @return whether no notice waits for the reader */
    boolean isEmpty() {
        return queue.isEmpty();
    }

    /** @return whether the reader thread runs the listener now */
    boolean delivering() {
        return delivering;
    }

    /** @return until when (a {@link System#nanoTime} value) the reader polls for the next notice, or 0 not to */
    long streamPollUntil() {
        return arrivals.pollUntil();
    }

    /** Hands the queued notices to the listener, in order (reader thread only). */
    void deliver() {
        ControlMessage m;
        if (!queue.isEmpty()) {
            arrivals.arrived();
        }
        delivering = true;
        try {
            while ((m = queue.poll()) != null) {
                listener.accept(m);
            }
        } finally {
            delivering = false;
        }
    }
}
