package io.softcmi.cmi.notify;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * The notifications a context receives for the segments it created (notification extension;
 * not a libcmi call). Obtained with {@link Notifications#inbox}.
 *
 * <p>A notification that arrives while at least one handler is registered goes to the handlers;
 * otherwise it waits here for {@link #poll} or {@link #take}. Both keep arrival order.
 *
 * <p>Waiting ({@link #take} and the handler thread) spins for a few microseconds only if a
 * notification arrived within the last millisecond, then parks: an idle inbox costs no CPU.
 */
public interface NotificationInbox {
    /**
     * Takes the next waiting notification without waiting.
     *
     * @return the oldest waiting notification, or null if none
     */
    Notification poll();

    /**
     * Takes the next waiting notification, waiting at most {@code timeout}.
     *
     * @param timeout longest wait
     * @return the oldest waiting notification, or null after the timeout
     * @throws InterruptedException if the calling thread is interrupted while waiting
     */
    Notification take(Duration timeout) throws InterruptedException;

    /**
     * Registers a handler. Handlers run on one dedicated handler thread of the context, one
     * notification at a time, in arrival order; each notification goes to every registered
     * handler in registration order. The handler thread is associated with the context and has
     * remote access enabled ({@code cmi_enb}), so a handler may load, store and notify; it must
     * not call {@code fini}. A handler's exception is logged and the next notification handled.
     * Notifications already waiting in the inbox stay there (take them with {@link #poll}).
     *
     * @param handler the handler
     */
    void onNotification(Consumer<Notification> handler);

    /**
     * Registers an <b>inline</b> handler: it runs on the thread that reads the notification for
     * this context (the context's control reader thread, or for direct delivery its inlet
     * thread: {@link Notifications#openInlet}), as soon as the notification is read, with no
     * hand-over to the handler thread. Inline handlers run one notification at a time (never on
     * both threads at once), in arrival order, each notification to every inline handler in
     * registration order, <em>before</em> the notification goes on to the handlers of
     * {@link #onNotification} (if any; otherwise it is not queued for {@link #poll}). The thread
     * is associated with the context and has remote access enabled, as the handler thread is.
     *
     * <p>An inline handler holds up every notice of the context while it runs (events,
     * notifications; on the inlet thread, the notifications and the direct stores, not the
     * events), so it must be short and must not block or wait for other threads of the
     * process. It may load, store and notify, and even make calls to the node (those read their
     * own reply; notices arriving meanwhile wait until the handler returns, so inline handlers
     * never nest), but it must not call {@code fini}. Its exceptions are logged.
     *
     * @param handler the handler
     */
    void onNotificationInline(Consumer<Notification> handler);

    /**
     * Removes a handler; once none is left, new notifications wait in the inbox again.
     *
     * @param handler a handler given to {@link #onNotification} or {@link #onNotificationInline}
     * @return whether it was registered
     */
    boolean removeHandler(Consumer<Notification> handler);

    /** @return the number of notifications waiting to be taken */
    int size();
}
