package io.softcmi.node;

import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.FrameIO;
import io.softcmi.wire.MessageType;
import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Everything the node writes to one process: replies, written by the session's own thread, and
 * notices, which the engine hands over without ever blocking (it may hold its lock).
 *
 * <p>Order: notices are taken off the queue only under the write lock, and a reply first writes
 * the notices queued before it, so an event raised while serving a request reaches the process
 * before that request's reply. Notices raised outside any request of this session are written
 * by a virtual thread. A process that stops reading stalls only its own writer; past
 * {@link #MAX_PENDING} unwritten notices the session is closed.
 */
final class SessionWriter implements Session.Notifier {
    static final int MAX_PENDING = 10_000;
    private final SocketChannel channel;
    private final Object writeLock = new Object();
    private final ConcurrentLinkedQueue<ControlMessage> notices = new ConcurrentLinkedQueue<>();
    private final AtomicInteger pending = new AtomicInteger();
    private final Semaphore wakeup = new Semaphore(0);
    private final Thread drainer;

    SessionWriter(SocketChannel channel) {
        this.channel = channel;
        this.drainer = Thread.ofVirtual().name("cmid-notices").start(this::drain);
    }

    @Override
    public void send(ControlMessage notice) {
        if (pending.incrementAndGet() > MAX_PENDING) {
            close();
            return;
        }
        notices.add(notice);
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

    /** Writes a reply, after any notice queued before it. */
    void reply(ControlMessage reply, long correlationId) throws IOException {
        synchronized (writeLock) {
            flushNotices();
            FrameIO.write(channel, MessageType.toFrame(reply, correlationId));
        }
    }

    private void flushNotices() throws IOException {
        ControlMessage m;
        while ((m = notices.poll()) != null) {
            pending.decrementAndGet();
            FrameIO.write(channel, MessageType.toFrame(m, 0));
        }
    }

    private void drain() {
        try {
            while (channel.isOpen()) {
                wakeup.acquire();
                synchronized (writeLock) {
                    flushNotices();
                }
            }
        } catch (InterruptedException | IOException e) {
            // The session is over.
        }
    }

    /** Stops the writer and closes the connection; the session's reader then ends it. */
    void close() {
        drainer.interrupt();
        try {
            channel.close();
        } catch (IOException ignored) {
            // Already closed.
        }
    }
}
