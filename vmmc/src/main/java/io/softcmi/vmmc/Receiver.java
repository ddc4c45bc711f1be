package io.softcmi.vmmc;

import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.notify.Notification;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongConsumer;

/**
 * The receiving side: the process's exports by CMI segment id, and the delivery of messages.
 * Every message a sender puts into a receive buffer's segment is followed by a segment
 * notification (on the same mapping and thread, so it arrives after the data), except a message
 * without notification into a direct buffer, which needs nothing here. The context's
 * control reader thread runs {@link #onNotification} as an inline notification handler
 * ({@code io.softcmi.cmi.notify}), one at a time: it copies the message's words from the segment into the exported user buffer
 * (or, for a posted redirection, into the user's redirection buffer; a direct buffer,
 * {@link ExportHandle#direct}, is the segment and gets no copy), records DataEnd, and then
 * runs the buffer's VMMC handler unless notifications are blocked, in which case the call is
 * queued and run, in order, when they are unblocked.
 */
final class Receiver {
    /** Words copied per step; redirection is rechecked between steps (so a PostRedir may catch the rest of a message). */
    static final long CHUNK_WORDS = Long.getLong("vmmc.copyChunkWords", 16 * 1024);

    private record Pending(ExportHandle export, MemorySegment target, long targetOffset, long address) {
    }

    final Map<Long, ExportHandle> bySegment = new ConcurrentHashMap<>();
    /** Held while handlers run; blockNotifications takes it so a block waits for a running handler. */
    final ReentrantLock gate = new ReentrantLock();
    /**
     * Guards {@link #pending} and {@link #userBlocks}; held briefly, never while a handler runs, so
     * that a thread asking about the queue ({@link #hasPendingFor}, from UnexportRecvBuf) never
     * waits for a handler, which may itself wait for that thread's endpoint.
     */
    private final Object queueLock = new Object();
    private final ArrayDeque<Pending> pending = new ArrayDeque<>(); // guarded by queueLock
    private int userBlocks; // guarded by queueLock
    private volatile Thread handlerThread;
    private boolean inHandler; // the thread that runs handlers (the control reader) only
    private final long wakeSegment;
    /** Notifications this process handled (the control reader's thread writes it): for tests. */
    volatile long notices;
    /** The last ticket of {@link #flush}: the value of its wake notice. */
    private final AtomicLong flushTickets = new AtomicLong();
    /** The highest ticket whose wake notice was handled (the thread that runs handlers writes it). */
    private volatile long flushed;

    Receiver(long wakeSegment) {
        this.wakeSegment = wakeSegment;
    }

    boolean onHandlerThread() {
        return Thread.currentThread() == handlerThread && inHandler;
    }

    /** The handler of the context's notifications (one thread). */
    void onNotification(Notification n) {
        handlerThread = Thread.currentThread();
        notices++; // one writer thread
        long id = n.segment().id();
        if (id != wakeSegment) {
            ExportHandle e = bySegment.get(id);
            if (e != null && e.live) {
                deliver(e, n.value());
            }
        } else if (n.value() > flushed) {
            flushed = n.value();
        }
        drain();
    }

    /**
     * Waits until every notice the node queued for this process before the call has been
     * handled (its message copied): sends a wake notice with a new ticket through the node,
     * which queues it behind them (the node writes a process's notices in order, and they are
     * handled in that order), and waits for it. A reply to an earlier call is no such proof: the
     * calling thread may read its reply itself and leave the notices before it to the handler
     * thread. Does not wait on the thread that runs handlers (it would wait for itself).
     *
     * @param wake sends the wake notice with the given value
     * @param timeoutNanos how long to wait at most
     * @return whether they were handled (false: timed out, or called by a handler)
     */
    boolean flush(LongConsumer wake, long timeoutNanos) {
        if (onHandlerThread()) {
            return false;
        }
        long ticket = flushTickets.incrementAndGet();
        wake.accept(ticket);
        long deadline = System.nanoTime() + timeoutNanos;
        long pause = 1_000;
        while (flushed < ticket) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            LockSupport.parkNanos(pause);
            pause = Math.min(pause * 2, 1_000_000);
        }
        return true;
    }

    /** Encodes a message for the notification value: start word, word count and the notify bit. */
    static long encode(long startWord, long nwords, boolean notify) {
        return (startWord << 32) | (nwords << 1) | (notify ? 1 : 0);
    }

    private void deliver(ExportHandle e, long value) {
        long start = value >>> 32;
        long count = (value >>> 1) & 0x7FFF_FFFFL;
        boolean notify = (value & 1) != 0;
        if (count == 0 || start + count > e.nwords) {
            return;
        }
        CmiMapping m = e.mapping;
        MemorySegment lastTarget = e.buf;
        long lastTargetWord = start + count - 1;
        long lastTargetOffset = lastTargetWord * 4;
        // The PostRedir this message redirects into (ExportHandle#redirPosts), 0 before its first
        // redirected word: later chunks continue only that posting, never one posted after it.
        long posting = 0;
        // A direct buffer is the segment: the home put the words there, nothing to copy.
        for (long s = start; !e.direct && s < start + count; s += CHUNK_WORDS) {
            long end = Math.min(start + count, s + CHUNK_WORDS);
            synchronized (e) {
                if (e.redirPosted && (posting == 0 ? !e.redirDone : e.redirPosts == posting)) {
                    long lo = Math.max(s, e.redirOffset);
                    long hi = Math.min(end, e.redirOffset + e.redirWords);
                    if (lo < hi && (posting == 0 ? e.redirCount == 0 : e.redirFirst + e.redirCount == lo - e.redirOffset)) {
                        copy(m, s, lo, e.buf, s);
                        copy(m, lo, hi, e.redirBuf, lo - e.redirOffset);
                        copy(m, hi, end, e.buf, hi);
                        if (posting == 0) {
                            e.redirFirst = lo - e.redirOffset;
                            e.redirDone = true; // at most one redirection per PostRedir: this message's
                            posting = e.redirPosts;
                        }
                        e.redirCount += hi - lo;
                        if (lastTargetWord >= lo && lastTargetWord < hi) {
                            lastTarget = e.redirBuf;
                            lastTargetOffset = (lastTargetWord - e.redirOffset) * 4;
                        }
                        continue;
                    }
                }
            }
            copy(m, s, end, e.buf, s);
        }
        VarHandle.releaseFence();
        if (e.flags.contains(BufFlag.REDIRECTABLE)) {
            e.dataEnd = lastTargetWord;
        }
        if (notify && e.proc != null) {
            synchronized (queueLock) {
                pending.add(new Pending(e, lastTarget, lastTargetOffset, lastTarget.address() + lastTargetOffset));
            }
        }
    }

    /** Copies words [from, to) of the segment to {@code dst} at word {@code dstWord}, the last word last. */
    private static void copy(CmiMapping m, long from, long to, MemorySegment dst, long dstWord) {
        long n = to - from;
        if (n <= 0) {
            return;
        }
        if (n > 1) {
            m.get(from * 4, dst.asSlice(dstWord * 4, (n - 1) * 4));
            VarHandle.storeStoreFence();
        }
        dst.set(ValueLayout.JAVA_INT_UNALIGNED, (dstWord + n - 1) * 4, m.getInt((to - 1) * 4));
    }

    /** Runs queued handler calls while notifications are not blocked (on the thread that runs handlers). */
    private void drain() {
        gate.lock();
        try {
            while (true) {
                Pending p;
                synchronized (queueLock) {
                    p = userBlocks == 0 ? pending.poll() : null;
                }
                if (p == null) {
                    break;
                }
                if (!p.export.live) {
                    continue;
                }
                inHandler = true;
                try {
                    int v = p.target.get(ValueLayout.JAVA_INT_UNALIGNED, p.targetOffset);
                    p.export.proc.onNotification(p.address, v);
                } catch (RuntimeException x) {
                    System.getLogger("io.softcmi.vmmc").log(System.Logger.Level.WARNING, "VMMC notification handler failed", x);
                } finally {
                    inHandler = false;
                }
            }
        } finally {
            gate.unlock();
        }
    }

    /** vmmc_BlockNotifications: waits for a running handler (unless called by it), then counts one level. */
    void block() {
        gate.lock();
        try {
            synchronized (queueLock) {
                userBlocks++;
            }
        } finally {
            gate.unlock();
        }
    }

    /**
     * vmmc_UnblockNotifications.
     *
     * @return the remaining blocking levels (the handler's own level counts one), 0 if unblocked
     * @throws VmmcException NOT_IN_HANDLER when it would unblock inside a handler
     */
    int unblock(Runnable wake) {
        boolean woke = false;
        gate.lock();
        try {
            boolean handler = onHandlerThread();
            synchronized (queueLock) {
                if (userBlocks == 0) {
                    if (handler) {
                        throw new VmmcException(VmmcResult.NOT_IN_HANDLER, "notifications stay blocked while a handler runs");
                    }
                    return 0;
                }
                userBlocks--;
                if (userBlocks == 0 && !handler && !pending.isEmpty()) {
                    woke = true;
                }
                return userBlocks + (handler ? 1 : 0);
            }
        } finally {
            gate.unlock();
            if (woke) {
                wake.run();
            }
        }
    }

    /**
     * Whether handler calls for {@code e} wait while notifications are blocked: blocked by the
     * program ({@code vmmc_BlockNotifications}), or by the handler that asks (a handler's own
     * level counts one). Does not wait for a running handler: calls queued behind it while
     * nothing blocks them run when it returns.
     *
     * @param e an export
     * @return whether blocked handler calls for it are queued
     */
    boolean hasPendingFor(ExportHandle e) {
        boolean handler = onHandlerThread();
        synchronized (queueLock) {
            return (userBlocks > 0 || handler) && pending.stream().anyMatch(p -> p.export == e);
        }
    }
}
