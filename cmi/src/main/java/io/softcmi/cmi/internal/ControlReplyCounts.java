package io.softcmi.cmi.internal;

import io.softcmi.wire.Frame;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How the callers of a control connection ({@link NodeChannel}) count their replies in the
 * connection's {@link PollBudget} ({@code docs/architecture.md} 7.5, <i>The control path</i>).
 *
 * <p>A poll counts by its outcome, as every waiter's does: a poll that caught its reply is a hit
 * (counted by the caller as it ends), a poll that missed it is a miss whatever the cause, so a
 * caller never keeps spinning in vain against a node that has to be woken for each request. A
 * reply its caller did not poll for (the caller blocked, or its poll did not run) counts by what
 * the node says of it: a poll would have caught it if the node was polling for the request and
 * served it within a poll budget (a hit); it would have missed it if the node took longer than
 * that ({@link Frame#FLAG_NODE_SLOW}, a miss); a reply the node sent after being woken
 * ({@link Frame#FLAG_NODE_WOKE}) says nothing either way. So a caller that blocks learns that
 * polls pay again as soon as its requests find the node polling, instead of waiting for a probe
 * that hits only in a round in which both ends poll.
 *
 * <p>Callers count after their call, from any thread; whoever holds the connection's read lock
 * moves the counts into the budget ({@link #moveInto}).
 */
final class ControlReplyCounts {
    private final AtomicInteger hits = new AtomicInteger();
    private final AtomicInteger misses = new AtomicInteger();

    /**
     * Counts one reply.
     *
     * @param flags the reply's header flags
     * @param caught whether the caller's poll took it (already counted as a hit)
     * @param missed whether the caller polled for it and the poll ended first
     */
    void count(int flags, boolean caught, boolean missed) {
        if (caught) {
            return;
        }
        if (missed || (flags & Frame.FLAG_NODE_SLOW) != 0) {
            misses.incrementAndGet();
        } else if ((flags & Frame.FLAG_NODE_WOKE) == 0) {
            hits.incrementAndGet();
        }
    }

    /**
     * Moves the counts so far into the budget; under the lock that guards it.
     *
     * @param budget the connection's poll budget
     */
    void moveInto(PollBudget budget) {
        if (hits.get() != 0) {
            for (int n = hits.getAndSet(0); n > 0; n--) {
                budget.polled(true);
            }
        }
        if (misses.get() != 0) {
            for (int n = misses.getAndSet(0); n > 0; n--) {
                budget.polled(false);
            }
        }
    }
}
