package io.softcmi.cmi.internal;

import io.softcmi.cmi.notify.Notification;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The one handler thread of a context's inbox: takes notifications in arrival order and runs
 * every registered handler on each, one at a time. The thread is associated with the context
 * and enabled for remote access (without counting as an {@code ini_th} thread, so it never
 * keeps the context alive), so handlers may load, store and notify back.
 */
final class NotificationDispatcher implements Runnable {
    private static final System.Logger LOG = System.getLogger("io.softcmi.cmi");
    private final LinkedBlockingQueue<Notification> queue = new LinkedBlockingQueue<>();
    private final ContextImpl context;
    private final NotificationInboxImpl inbox;
    private final List<Consumer<Notification>> handlers;
    private final Thread thread;
    private volatile boolean stopped;

    private NotificationDispatcher(ContextImpl context, NotificationInboxImpl inbox, List<Consumer<Notification>> handlers) {
        this.context = context;
        this.inbox = inbox;
        this.handlers = handlers;
        this.thread = Thread.ofPlatform().daemon().name("softcmi-notify-" + context.sessionId()).unstarted(this);
    }

    static NotificationDispatcher start(ContextImpl context, NotificationInboxImpl inbox,
            List<Consumer<Notification>> handlers) {
        NotificationDispatcher d = new NotificationDispatcher(context, inbox, handlers);
        d.thread.start();
        return d;
    }

    void enqueue(Notification n) {
        queue.add(n);
    }

    void stop() {
        stopped = true;
        thread.interrupt();
    }

    @Override
    public void run() {
        LatencySlice.applyToCurrentThread();
        context.bindHandlerThread();
        try {
            while (!stopped) {
                Notification n = SpinThenPark.take(queue, TimeUnit.SECONDS.toNanos(1), inbox.lastArrival());
                if (n != null) {
                    dispatch(n);
                }
            }
        } catch (InterruptedException e) {
            // The context ended.
        }
    }

    private void dispatch(Notification n) {
        if (handlers.isEmpty()) {
            inbox.requeue(n);
            return;
        }
        for (Consumer<Notification> h : handlers) {
            runHandler(h, n);
        }
    }

    /** Runs one handler on one notification; its exception is logged. */
    static void runHandler(Consumer<Notification> h, Notification n) {
        try {
            h.accept(n);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "notification handler failed on " + n, e);
        }
    }
}
