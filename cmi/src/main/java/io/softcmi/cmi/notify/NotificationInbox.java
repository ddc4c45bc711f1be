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
     * Removes a handler; once none is left, new notifications wait in the inbox again.
     *
     * @param handler a handler given to {@link #onNotification}
     * @return whether it was registered
     */
    boolean removeHandler(Consumer<Notification> handler);

    /** @return the number of notifications waiting to be taken */
    int size();
}
