package io.softcmi.smi.internal;

import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import java.util.function.LongPredicate;

/**
 * A {@link Waker} that stores the word and lets the waiter poll its own (local) control segment
 * with bounded backoff; each poll costs a local load and a load barrier, never a network round
 * trip.
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
        target.putLong(offset, value);
        ctx.wmb();
    }

    @Override
    public long await(long offset, LongPredicate done) {
        Backoff b = new Backoff();
        for (int n = 0;; n++) {
            ctx.rmb();
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
            ctx.rmb();
            for (int i = 0; i < count; i++) {
                if (done.test(i, own.getLong(offset + 8L * i))) {
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
