package io.softcmi.node;

import io.softcmi.wire.ControlMessage;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * One context's session with the node: a control connection from one process. Its end (the
 * connection closing, for any reason, {@code kill -9} included) is the process leaving CMI.
 * Guarded by the engine's lock, except {@link #notifier}, which serializes its own writes.
 */
final class Session {
    /** Sends a notice to the session's process. */
    interface Notifier {
        /** Queues a notice; never blocks. */
        void send(ControlMessage notice);

        /** Writes a notice (and those queued before it) before returning: for the last words at shutdown. */
        void sendNow(ControlMessage notice);

        /** @return notices queued and not yet written (for the notification back-pressure) */
        default int pending() {
            return 0;
        }

        /**
         * The notification back-pressure of the remote path waits here without a thread:
         * registers {@code resume} to run once (on whichever thread writes the notice that
         * brings {@link #pending} down to {@code line}, or closes the writer).
         *
         * @param line unwritten notices at or below which {@code resume} runs
         * @param resume what to run; it must not block
         * @return true if registered; false, without registering or running it, if at most
         *     {@code line} notices are unwritten already or the writer is closed
         */
        default boolean whenBelow(int line, Runnable resume) {
            return false;
        }
    }

    final long id;
    final long pid;
    final String user;
    final String processName;
    final int apiVersion;
    final Notifier notifier;
    final Instant started = Instant.now();
    final Map<Long, Long> attachments = new HashMap<>();      // attach id -> segment id
    final Set<Long> created = new LinkedHashSet<>();
    final Set<Long> imported = new LinkedHashSet<>();
    final Map<Long, Long> exports = new HashMap<>();          // export id -> segment id
    MemoryReservation reservation;
    long defaultCacheBytes = -1;
    /** Set when the process said {@code fini} before its connection closed (a clean end, not a death). */
    volatile boolean leftCleanly;
    /**
     * The context's latest cache figures ({@link ControlMessage.CacheReport}), or null before the
     * first; written by the connection's thread without the engine lock, read under it.
     */
    volatile ControlMessage.CacheReport cacheReport;
    /** Set once the process was given a node ticket (refused everywhere this node knows once the session ends). */
    boolean ticketIssued;

    Session(long id, long pid, String user, String processName, int apiVersion, Notifier notifier) {
        this.id = id;
        this.pid = pid;
        this.user = user;
        this.processName = processName;
        this.apiVersion = apiVersion;
        this.notifier = notifier;
    }
}
