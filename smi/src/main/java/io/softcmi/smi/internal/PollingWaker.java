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
    private final Runnable check;

    /**
     * @param ctx the context
     * @param own this process's control segment
     * @param check run now and then while waiting (aborts the wait if the job is ending)
     */
    PollingWaker(CmiContext ctx, CmiMapping own, Runnable check) {
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
    public long await(long offset, LongPredicate done) {
        long v = awaitLocal(offset, done);
        ctx.rmb();
        return v;
    }

    @Override
    public long awaitLocal(long offset, LongPredicate done) {
        Backoff b = new Backoff();
        for (int n = 0;; n++) {
            VarHandle.acquireFence();
            long v = own.getLong(offset);
            if (done.test(v)) {
                return v;
            }
            if ((n & 255) == 255) {
                check.run();
            }
            b.idle();
        }
    }

    @Override
    public int awaitAny(long offset, int count, IndexedCondition done) {
        Backoff b = new Backoff();
        for (int n = 0;; n++) {
            VarHandle.acquireFence();
            for (int i = 0; i < count; i++) {
                if (done.test(i, own.getLong(offset + 8L * i))) {
                    ctx.rmb();
                    return i;
                }
            }
            if ((n & 255) == 255) {
                check.run();
            }
            b.idle();
        }
    }
}
