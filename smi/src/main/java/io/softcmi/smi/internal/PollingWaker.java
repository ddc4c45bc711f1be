package io.softcmi.smi.internal;

import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import java.lang.invoke.VarHandle;
import java.util.function.LongPredicate;

/**
 * A {@link Waker} that stores the word and lets the waiter poll its own (local) control segment
 * with bounded backoff; each poll costs a local load and a compiler fence, never a network round
 * trip (the CMI load barrier comes once, when the word has changed). The store is released
 * ({@code wmb}) before it is made, so the woken process sees the poster's earlier stores.
 */
final class PollingWaker implements Waker {
    private final CmiContext ctx;
    private final CmiMapping own;
    private final WaitCheck check;

    /**
     * @param ctx the context
     * @param own this process's control segment
     * @param check run every 256 polls of a wait (ends the process if the job is ending, fails the
     *     wait if its partner finalized)
     */
    PollingWaker(CmiContext ctx, CmiMapping own, WaitCheck check) {
        this.ctx = ctx;
        this.own = own;
        this.check = check;
    }

    @Override
    public void post(CmiMapping target, long offset, long value) {
        ctx.wmb();
        target.putLong(offset, value);
    }

    @Override
    public long await(long offset, LongPredicate done, int partner) {
        long v = poll(offset, 1, (i, x) -> done.test(x), true, partner);
        ctx.rmb();
        return v;
    }

    @Override
    public long awaitLocal(long offset, LongPredicate done) {
        return poll(offset, 1, (i, x) -> done.test(x), true, Departures.NONE);
    }

    @Override
    public int awaitAny(long offset, int count, IndexedCondition done, int partner) {
        int i = (int) poll(offset, count, done, false, partner);
        ctx.rmb();
        return i;
    }

    /**
     * Polls the words until one satisfies {@code done}.
     *
     * @return the satisfying word's value if {@code value}, else its index
     */
    private long poll(long offset, int count, IndexedCondition done, boolean value, int partner) {
        Backoff b = new Backoff();
        long[] seen = new long[1];
        for (int n = 0;; n++) {
            VarHandle.acquireFence();
            int i = Waker.find(own, offset, count, done, seen);
            if (i >= 0) {
                return value ? seen[0] : i;
            }
            if (Thread.currentThread().isInterrupted()) {
                // As NotifyWaker's blocking take: an interrupted wait ends (a park would not).
                throw Errors.fail(io.softcmi.smi.SmiError.OTHER, "interrupted while waiting");
            }
            if ((n & 255) == 255) {
                check.check(partner, () -> {
                    VarHandle.acquireFence();
                    return Waker.find(own, offset, count, done, seen) >= 0;
                });
            }
            b.idle();
        }
    }
}
