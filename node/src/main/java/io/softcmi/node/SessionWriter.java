package io.softcmi.node;

import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.FrameIO;
import io.softcmi.wire.MessageType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Everything the node writes to one process: replies, written by the session's own thread, and
 * notices, which the engine hands over without ever blocking (it may hold its lock, or be a
 * data-path I/O loop serving many connections).
 *
 * <p>Order: notices are taken off the queue only under the write lock, and a reply first writes
 * the notices queued before it, so an event raised while serving a request reaches the process
 * before that request's reply.
 *
 * <p>A notice is written <b>by the thread that raised it</b> when that costs no wait: the write
 * lock is free and the socket (non-blocking, see {@link ControlPoller}) takes the whole frame.
 * This saves the wake-up of another thread on the way of every notification. Otherwise (the
 * lock is held, or the socket is full and took part of the frame or none) a virtual thread, the
 * drainer, finishes the job, waiting for the socket as long as it takes. A process that stops
 * reading stalls only its own drainer; past {@link #MAX_PENDING} unwritten notices the session
 * is closed.
 *
 * <p>Who waits for the backlog to shrink ({@link #whenBelow}: a home data connection holding a
 * notification back, {@code NotificationService}) is called back by the thread that writes the
 * notice bringing it down to the waiter's line, or by {@link #close}.
 */
final class SessionWriter implements Session.Notifier {
    static final int MAX_PENDING = 10_000;
    /** Replies up to this size (header included) are encoded into one reused direct buffer. */
    static final int REPLY_BUFFER_BYTES = 4096;
    private final SocketChannel channel;
    private final ControlPoller poller;
    private final ReentrantLock writeLock = new ReentrantLock();
    private final ConcurrentLinkedQueue<ControlMessage> notices = new ConcurrentLinkedQueue<>();
    private final AtomicInteger pending = new AtomicInteger();
    private final Semaphore wakeup = new Semaphore(0);
    private final Thread drainer;
    /** Where replies that fit are encoded (direct: written without a copy); guarded by {@link #writeLock}. */
    private final ByteBuffer replyBuffer = ByteBuffer.allocateDirect(REPLY_BUFFER_BYTES);
    /** The unwritten rest of a frame a non-blocking attempt left; guarded by {@link #writeLock}. */
    private ByteBuffer unfinished;
    /** Callbacks of {@link #whenBelow}, each run once. */
    private final ConcurrentLinkedQueue<Waiter> waiters = new ConcurrentLinkedQueue<>();
    private volatile boolean closed;

    /** A {@link #whenBelow} registration. */
    private record Waiter(int line, Runnable resume) {
    }

    /**
     * @param channel the process's control socket, in non-blocking mode
     * @param poller where writers wait for the socket to take more
     */
    SessionWriter(SocketChannel channel, ControlPoller poller) {
        this.channel = channel;
        this.poller = poller;
        this.drainer = Thread.ofVirtual().name("cmid-notices").start(this::drain);
    }

    @Override
    public void send(ControlMessage notice) {
        if (pending.incrementAndGet() > MAX_PENDING) {
            close();
            return;
        }
        notices.add(notice);
        if (writeLock.tryLock()) {
            try {
                if (flushWithoutWaiting()) {
                    return;
                }
            } catch (IOException e) {
                return; // the process is gone; its session's reader ends the session
            } finally {
                writeLock.unlock();
            }
        }
        // The holder of the lock may have flushed before our notice was queued, or the socket is full.
        wakeup.release();
    }

    @Override
    public void sendNow(ControlMessage notice) {
        try {
            reply(notice, 0);
        } catch (IOException e) {
            // The process is gone already.
        }
    }

    @Override
    public int pending() {
        return pending.get();
    }

    @Override
    public boolean whenBelow(int line, Runnable resume) {
        Waiter w = new Waiter(line, resume);
        waiters.add(w);
        // Checked after adding: a writer that brought the count down before the add saw no
        // waiter, so this thread must see the count (both are volatile, one sees the other).
        if (!closed && pending.get() > line) {
            return true;
        }
        // Already below: unregister, unless a writer took the waiter meanwhile (it runs it).
        return !waiters.remove(w);
    }

    /** Runs the waiters whose line the backlog has reached (all of them once closed). */
    private void wakeWaiters() {
        int now = pending.get();
        for (Waiter w : waiters) {
            if ((closed || now <= w.line()) && waiters.remove(w)) {
                w.resume().run();
            }
        }
    }

    /** Writes a reply, after any notice queued before it. */
    void reply(ControlMessage reply, long correlationId) throws IOException {
        reply(reply, correlationId, 0);
    }

    /**
     * Writes a reply with header flags, after any notice queued before it.
     *
     * @param flags {@link io.softcmi.wire.Frame#FLAG_NODE_WOKE}, {@link io.softcmi.wire.Frame#FLAG_NODE_SLOW}, or 0
     */
    void reply(ControlMessage reply, long correlationId, int flags) throws IOException {
        writeLock.lock();
        try {
            flushWaiting();
            // Written whole before the lock is released, so the reused buffer is free for the next reply.
            writeWaiting(FrameIO.encode(MessageType.toFrame(reply, correlationId, flags), replyBuffer));
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * Writes what is unfinished and the queued notices as far as the socket takes them now.
     * Under {@link #writeLock}.
     *
     * @return true if everything was written; false if the rest is left in {@link #unfinished}
     *     (and perhaps the queue) for a waiting writer
     */
    private boolean flushWithoutWaiting() throws IOException {
        if (unfinished != null) {
            channel.write(unfinished);
            if (unfinished.hasRemaining()) {
                return false;
            }
            unfinished = null;
        }
        ControlMessage m;
        while ((m = notices.poll()) != null) {
            pending.decrementAndGet();
            if (!waiters.isEmpty()) {
                wakeWaiters();
            }
            ByteBuffer buf = FrameIO.encode(MessageType.toFrame(m, 0));
            channel.write(buf);
            if (buf.hasRemaining()) {
                unfinished = buf;
                return false;
            }
        }
        return true;
    }

    /** Writes what is unfinished and every queued notice, waiting for the socket. Under {@link #writeLock}. */
    private void flushWaiting() throws IOException {
        while (!flushWithoutWaiting()) {
            poller.await(channel, SelectionKey.OP_WRITE);
        }
    }

    /** Writes a whole buffer, waiting for the socket. Under {@link #writeLock}, after {@link #flushWaiting}. */
    private void writeWaiting(ByteBuffer buf) throws IOException {
        while (true) {
            channel.write(buf);
            if (!buf.hasRemaining()) {
                return;
            }
            poller.await(channel, SelectionKey.OP_WRITE);
        }
    }

    private void drain() {
        try {
            while (channel.isOpen()) {
                wakeup.acquire();
                writeLock.lock();
                try {
                    flushWaiting();
                } finally {
                    writeLock.unlock();
                }
            }
        } catch (InterruptedException | IOException e) {
            // The session is over.
        }
    }

    /** Stops the writer and closes the connection; the session's reader then ends it. */
    void close() {
        closed = true;
        wakeWaiters();
        drainer.interrupt();
        try {
            channel.close();
        } catch (IOException ignored) {
            // Already closed.
        }
        poller.closed(channel); // the session's reader may be parked there
    }
}
