package io.softcmi.smi.internal;

import io.softcmi.cmi.CmiAccessException;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.notify.NotificationInbox;
import io.softcmi.cmi.notify.Notifications;
import io.softcmi.cmi.notify.WaitWindow;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.function.LongPredicate;

/**
 * The {@link Waker} built on CMI segment notifications ({@code io.softcmi.cmi.notify}, see
 * docs/notifications.md): the waker stores the word into the waiter's control segment, then
 * sends a notification on it, which the engine delivers to the segment's creator (the waiter)
 * after that store. The waiter checks its word, polls it briefly, then counts itself in its
 * {@code SLEEPERS} word and blocks in its context's notification inbox; the waker notifies only
 * when the target has sleepers. Nobody polls remote memory, and a waiter polls its own only for a
 * bounded time. The word stays the truth: a notification
 * only says "look again", so stale or stolen ones (another waiting thread of the process took it)
 * cost at most one re-check after a short timeout. Because the store lands before the
 * notification, a waiter first polls its own (local) word, for about twice the process's recent
 * waits (100 µs to 3 ms) while the poller keeps its core, for a few looks while waits have been
 * longer ({@link WaitWindow}), and blocks in the inbox after that.
 */
final class NotifyWaker implements Waker {
    private static final Duration TAKE_TIMEOUT = Duration.ofMillis(5);
    /** How often a blocked waiter runs its check (abort, finished partners: {@link Waker.WaitCheck}). */
    private static final long CHECK_NS = 250_000_000L;

    private final CmiContext ctx;
    private final CmiMapping own;
    private final NotificationInbox inbox;
    private final WaitCheck check;
    private final WaitWindow window = new WaitWindow();

    /**
     * @param ctx the context
     * @param own this process's control segment (created by {@code ctx}, so its notifications come here)
     * @param check run now and then once a wait blocks (ends the process if the job is ending,
     *     fails the wait if its partner finalized)
     */
    NotifyWaker(CmiContext ctx, CmiMapping own, WaitCheck check) {
        this.ctx = ctx;
        this.own = own;
        this.inbox = Notifications.inbox(ctx);
        this.check = check;
    }

    @Override
    public void post(CmiMapping target, long offset, long value) {
        // Release this process's cached stores first, so the woken process sees them.
        ctx.wmb();
        // Control segments are local or write-through imports (Segments.createSynchronization):
        // the store, then a notification only if the target counts sleepers, in one round trip
        // (Notifications.putAndNotifyIfWaiting). Dekker with the waiter: it counts itself in
        // SLEEPERS, fences, re-checks its word, then blocks; the sender's side stores, fences
        // and reads SLEEPERS (at the target's home). One sees the other's store, so a waiter
        // that blocks is always notified, and one still polling costs no notification.
        MemorySegment word = this.word.get();
        word.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
        try {
            Notifications.putAndNotifyIfWaiting(target, offset, word, offset, value, Layout.CTRL_SLEEPERS);
        } catch (CmiAccessException | IllegalStateException e) {
            // A waiter still polling may already have seen an earlier store, left (the last
            // barrier of SMI_Finalize) and removed its segment. A target that died instead is
            // the watchdog's and smirun's business.
        }
    }

    /** An 8-byte buffer per thread for the stored word. */
    private final ThreadLocal<MemorySegment> word = ThreadLocal.withInitial(() -> MemorySegment.ofArray(new long[1]));

    /** Threads of this process blocked in the inbox; SLEEPERS holds a copy. Guarded by this. */
    private long sleeping;

    /**
     * Counts this process's threads blocked in the inbox. The own control segment is local
     * memory: the count is kept in the process and stored into SLEEPERS, then a full fence
     * orders that store before the waiter's re-check of its word (the waker's side of the
     * Dekker is its store, fence and remote load of SLEEPERS). No {@code atm_cas}: it would be a
     * CMI release and acquire, a round trip to every home of the context's cached imports,
     * twice per sleep.
     */
    private void sleepers(long delta) {
        synchronized (this) {
            sleeping += delta;
            own.putLong(Layout.CTRL_SLEEPERS, sleeping);
        }
        VarHandle.fullFence();
    }

    @Override
    public long await(long offset, LongPredicate done, int partner) {
        long v = words(offset, 1, (i, x) -> done.test(x), true, partner);
        ctx.rmb();
        return v;
    }

    @Override
    public long awaitLocal(long offset, LongPredicate done) {
        return words(offset, 1, (i, x) -> done.test(x), true, Departures.NONE);
    }

    @Override
    public int awaitAny(long offset, int count, IndexedCondition done, int partner) {
        int i = (int) words(offset, count, done, false, partner);
        ctx.rmb();
        return i;
    }

    private long words(long offset, int count, IndexedCondition done, boolean value, int partner) {
        long start = System.nanoTime();
        long[] seen = new long[1];
        int i;
        // The own control segment is local memory: a load needs no CMI load barrier (which
        // would ask every home of the context's cached imports), only one that keeps the JIT
        // from hoisting it out of the loop. The caller makes the CMI rmb once the wait is over.
        VarHandle.acquireFence();
        if ((i = Waker.find(own, offset, count, done, seen)) >= 0) {
            return value ? seen[0] : i;
        }
        // The waker's store lands before its notification: a poll of the own (local) word
        // catches it without the wake-up hops, for about twice the recent waits (WaitWindow).
        int[] found = new int[1];
        if (WaitWindow.poll(window.budget(), start, () -> {
            VarHandle.acquireFence();
            return (found[0] = Waker.find(own, offset, count, done, seen)) >= 0;
        })) {
            window.ended(System.nanoTime() - start);
            return value ? seen[0] : found[0];
        }
        long checked = System.nanoTime();
        while (true) {
            sleepers(1);
            try {
                // sleepers() ends with a full fence: the re-check below cannot read the word
                // before SLEEPERS is visible to wakers.
                if (Waker.find(own, offset, count, done, seen) < 0) {
                    inbox.take(TAKE_TIMEOUT);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw Errors.fail(io.softcmi.smi.SmiError.OTHER, "interrupted while waiting");
            } finally {
                sleepers(-1);
            }
            VarHandle.acquireFence();
            if ((i = Waker.find(own, offset, count, done, seen)) >= 0) {
                window.ended(System.nanoTime() - start);
                return value ? seen[0] : i;
            }
            if (System.nanoTime() - checked > CHECK_NS) {
                checked = System.nanoTime();
                // Only here, on a blocking re-check every CHECK_NS: the poll above stays as cheap as before.
                check.check(partner, () -> {
                    VarHandle.acquireFence();
                    return Waker.find(own, offset, count, done, seen) >= 0;
                });
            }
        }
    }
}
