package io.softcmi.cmi.internal;

import io.softcmi.cmi.notify.Notification;
import io.softcmi.cmi.notify.NotificationInbox;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;

/**
 * A context's {@link NotificationInbox}. The control reader thread and the inlet thread
 * {@link #deliver deliver}, one at a time: the delivering thread runs the inline handlers
 * itself, then hands the notification to the
 * {@link NotificationDispatcher} if a handler is registered at that moment, else (if there is
 * no inline handler either) into the queue for {@link #poll}/{@link #take}.
 */
final class NotificationInboxImpl implements NotificationInbox {
    private final LinkedBlockingQueue<Notification> waiting = new LinkedBlockingQueue<>();
    private final CopyOnWriteArrayList<Consumer<Notification>> handlers = new CopyOnWriteArrayList<>();
    private final CopyOnWriteArrayList<Consumer<Notification>> inline = new CopyOnWriteArrayList<>();
    /** Notifications handed in and not delivered yet ({@link #deliver}). */
    private final java.util.concurrent.ConcurrentLinkedQueue<Notification> incoming = new java.util.concurrent.ConcurrentLinkedQueue<>();
    /** Whether a thread is delivering ({@link #deliver}). */
    private final java.util.concurrent.atomic.AtomicBoolean delivering = new java.util.concurrent.atomic.AtomicBoolean();
    private final ContextImpl context;
    private NotificationDispatcher dispatcher;
    private volatile long lastArrival;
    private boolean closed;

    NotificationInboxImpl(ContextImpl context) {
        this.context = context;
    }

    /**
     * Called on the control reader thread, in the order the node sent the notices, and on the
     * context's inlet thread (direct delivery) in the order each sender sent them. One thread
     * delivers at a time, in the order the notifications were handed in: a thread that finds
     * another delivering leaves its notification to that one and returns at once (so the control
     * reader never waits for a handler running on the inlet thread, nor the other way round).
     */
    void deliver(Notification n) {
        incoming.add(n);
        while (delivering.compareAndSet(false, true)) {
            try {
                Notification next;
                while ((next = incoming.poll()) != null) {
                    deliverNow(next);
                }
            } finally {
                delivering.set(false);
            }
            if (incoming.isEmpty()) {
                return;
            }
        }
    }

    private void deliverNow(Notification n) {
        lastArrival = System.nanoTime();
        boolean ranInline = false;
        for (Consumer<Notification> h : inline) {
            ThreadState ts = ThreadState.current();
            if (ts.context != context || !ts.enabled) {
                context.bindHandlerThread();
            }
            NotificationDispatcher.runHandler(h, n);
            ranInline = true;
        }
        NotificationDispatcher d;
        synchronized (this) {
            d = handlers.isEmpty() ? null : dispatcher;
        }
        if (d != null) {
            d.enqueue(n);
        } else if (!ranInline) {
            waiting.add(n);
        }
    }

    /** Handed back by the dispatcher when the last handler went away before it ran. */
    void requeue(Notification n) {
        waiting.add(n);
    }

    long lastArrival() {
        return lastArrival;
    }

    @Override
    public Notification poll() {
        return waiting.poll();
    }

    @Override
    public Notification take(Duration timeout) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout");
        return SpinThenPark.take(waiting, timeout.toNanos(), lastArrival);
    }

    @Override
    public synchronized void onNotification(Consumer<Notification> handler) {
        Objects.requireNonNull(handler, "handler");
        if (closed) {
            throw Errors.fail(io.softcmi.cmi.CmiError.INVAL, "context is finalized");
        }
        if (dispatcher == null) {
            dispatcher = NotificationDispatcher.start(context, this, handlers);
        }
        handlers.add(handler);
    }

    @Override
    public synchronized void onNotificationInline(Consumer<Notification> handler) {
        Objects.requireNonNull(handler, "handler");
        if (closed) {
            throw Errors.fail(io.softcmi.cmi.CmiError.INVAL, "context is finalized");
        }
        inline.add(handler);
    }

    @Override
    public boolean removeHandler(Consumer<Notification> handler) {
        return handlers.remove(handler) | inline.remove(handler);
    }

    @Override
    public int size() {
        return waiting.size();
    }

    /** The context ended: stops the handler thread. */
    synchronized void close() {
        closed = true;
        if (dispatcher != null) {
            dispatcher.stop();
        }
    }
}
