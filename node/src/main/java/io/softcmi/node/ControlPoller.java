package io.softcmi.node;

import io.softcmi.cmi.internal.LatencySlice;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Readiness waits for the control sockets, which the node keeps in non-blocking mode so that a
 * notice can be written by whichever thread raised it without ever blocking that thread
 * ({@link SessionWriter#send}). A thread that must wait (a session reading its next request, a
 * reply or the notice writer finding the socket full) parks here until one platform thread,
 * blocked in a {@link Selector} on every waited-for socket, finds it ready. This replaces the
 * JDK's own wait of a virtual thread in a blocking read, which is not available on a
 * non-blocking channel.
 */
final class ControlPoller implements AutoCloseable {
    /**
     * A parked waiter re-checks that its channel is still open this often: a safety net only,
     * since the peer's close makes the socket readable, {@link #closed} wakes the waiters of a
     * channel the node closed and {@link #close} wakes everyone.
     */
    private static final long RECHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

    private static final class Waiter {
        final SocketChannel channel;
        final int ops;
        final Thread thread;
        volatile boolean ready;

        Waiter(SocketChannel channel, int ops, Thread thread) {
            this.channel = channel;
            this.ops = ops;
            this.thread = thread;
        }

        void wake() {
            ready = true;
            if (thread != null) {
                LockSupport.unpark(thread);
            }
        }
    }

    private final Selector selector;
    private final ConcurrentLinkedQueue<Waiter> requests = new ConcurrentLinkedQueue<>();
    /** Who waits for which channel (poller thread only). */
    private final java.util.Map<SocketChannel, List<Waiter>> waiting = new java.util.HashMap<>();
    private final Thread thread;
    private volatile boolean closed;

    ControlPoller() throws IOException {
        this.selector = Selector.open();
        this.thread = Thread.ofPlatform().daemon().name("cmid-control-poller").start(this::run);
    }

    /**
     * Parks the calling thread until {@code channel} is ready for {@code ops}.
     *
     * @param channel a non-blocking socket
     * @param ops {@link SelectionKey#OP_READ} or {@link SelectionKey#OP_WRITE}
     * @throws ClosedChannelException if the channel or this poller closed meanwhile
     * @throws InterruptedIOException if the thread was interrupted (its interrupt status is kept)
     */
    void await(SocketChannel channel, int ops) throws IOException {
        if (closed || !channel.isOpen()) {
            throw new ClosedChannelException(); // not queued: the poller would only wake it at once
        }
        Waiter w = new Waiter(channel, ops, Thread.currentThread());
        requests.add(w);
        selector.wakeup();
        while (!w.ready) {
            if (closed || !channel.isOpen()) {
                throw new ClosedChannelException();
            }
            if (Thread.currentThread().isInterrupted()) {
                throw new InterruptedIOException("interrupted waiting for a control socket");
            }
            LockSupport.parkNanos(this, RECHECK_NANOS);
        }
        if (!channel.isOpen()) {
            throw new ClosedChannelException(); // woken because the node closed it
        }
    }

    /**
     * The node closed {@code channel}: wakes its waiters (their next I/O fails).
     *
     * @param channel a channel waited for here
     */
    void closed(SocketChannel channel) {
        requests.add(new Waiter(channel, 0, null));
        selector.wakeup();
    }

    private void run() {
        LatencySlice.applyToCurrentThread();
        try {
            while (!closed) {
                selector.select();
                Waiter w;
                while ((w = requests.poll()) != null) {
                    register(w);
                }
                Iterator<SelectionKey> it = selector.selectedKeys().iterator();
                while (it.hasNext()) {
                    SelectionKey k = it.next();
                    it.remove();
                    wakeReady(k);
                }
            }
        } catch (IOException | ClosedSelectorException e) {
            // Closed: wake everyone below.
        } finally {
            wakeEveryone();
        }
    }

    /** The poller stops: every waiter wakes, finds it closed and fails. */
    private void wakeEveryone() {
        waiting.values().forEach(ws -> ws.forEach(Waiter::wake));
        waiting.clear();
        try {
            selector.close();
        } catch (IOException ignored) {
            // Closing anyway.
        }
        Waiter w;
        while ((w = requests.poll()) != null) {
            w.wake();
        }
    }

    private void wakeAll(SocketChannel channel) {
        List<Waiter> ws = waiting.remove(channel);
        if (ws != null) {
            ws.forEach(Waiter::wake);
        }
    }

    private void register(Waiter w) {
        if (w.ops == 0 || !w.channel.isOpen()) { // closed(), or closed meanwhile
            wakeAll(w.channel);
            w.wake();
            return;
        }
        try {
            SelectionKey k = w.channel.keyFor(selector);
            if (k == null) {
                k = w.channel.register(selector, 0);
            }
            waiting.computeIfAbsent(w.channel, c -> new ArrayList<>()).add(w);
            k.interestOps(k.interestOps() | w.ops);
        } catch (ClosedChannelException | CancelledKeyException | IllegalArgumentException e) {
            wakeAll(w.channel); // closed: the waiters' next I/O fails and ends the session
            w.wake();
        }
    }

    private void wakeReady(SelectionKey k) {
        SocketChannel channel = (SocketChannel) k.channel();
        List<Waiter> waiters = waiting.get(channel);
        int ready;
        try {
            ready = k.readyOps();
        } catch (CancelledKeyException e) {
            ready = -1;
        }
        int still = 0;
        if (waiters != null) {
            for (Iterator<Waiter> i = waiters.iterator(); i.hasNext(); ) {
                Waiter w = i.next();
                if ((w.ops & ready) != 0) {
                    i.remove();
                    w.wake();
                } else {
                    still |= w.ops;
                }
            }
            if (waiters.isEmpty()) {
                waiting.remove(channel);
            }
        }
        try {
            k.interestOps(still);
        } catch (CancelledKeyException e) {
            wakeAll(channel);
        }
    }

    /** Stops the poller; every parked waiter wakes and fails. */
    @Override
    public void close() {
        closed = true;
        selector.wakeup();
        try {
            thread.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
