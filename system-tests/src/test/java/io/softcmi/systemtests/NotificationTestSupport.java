package io.softcmi.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.notify.Notification;
import io.softcmi.cmi.notify.NotificationInbox;
import io.softcmi.cmi.notify.Notifications;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * What the notification system tests share: the ordering check (a sender stores {@code i} into
 * slot {@code i}, then notifies {@code (slot i, i)}; the creator's handler checks the slot
 * already holds {@code i}, that handlers never overlap, that one thread runs them and that each
 * sender's notifications arrive in order).
 */
final class NotificationTestSupport {
    static final Duration WAIT = Duration.ofSeconds(30);

    private NotificationTestSupport() {
    }

    /** A handler that checks ordering, collects failures and counts notifications. */
    static final class OrderingHandler implements Consumer<Notification> {
        private final CmiMapping creatorMapping;
        private final CountDownLatch received;
        private final AtomicInteger running = new AtomicInteger();
        private final List<String> failures = new CopyOnWriteArrayList<>();
        private final Set<Thread> threads = ConcurrentHashMap.newKeySet();
        private final long[] lastValueBySender;

        /**
         * @param creatorMapping the creator's own mapping of the segment
         * @param expected notifications expected
         * @param senders senders, told apart by {@code value % senders}
         */
        OrderingHandler(CmiMapping creatorMapping, int expected, int senders) {
            this.creatorMapping = creatorMapping;
            this.received = new CountDownLatch(expected);
            this.lastValueBySender = new long[senders];
            java.util.Arrays.fill(lastValueBySender, -1);
        }

        @Override
        public void accept(Notification n) {
            try {
                if (running.incrementAndGet() != 1) {
                    failures.add("two handlers ran at once");
                }
                threads.add(Thread.currentThread());
                long data = creatorMapping.getLong(n.offset());
                if (data != n.value()) {
                    failures.add("notification " + n.value() + " arrived before its store (slot holds " + data + ")");
                }
                int sender = (int) (n.value() % lastValueBySender.length);
                if (n.value() <= lastValueBySender[sender]) {
                    failures.add("notification " + n.value() + " after " + lastValueBySender[sender]);
                }
                lastValueBySender[sender] = n.value();
            } finally {
                running.decrementAndGet();
                received.countDown();
            }
        }

        void awaitAllAndAssert() throws InterruptedException {
            assertTrue(received.await(WAIT.toSeconds(), TimeUnit.SECONDS), "all notifications handled, "
                + received.getCount() + " missing");
            assertEquals(List.of(), failures.subList(0, Math.min(10, failures.size())));
            assertEquals(1, threads.size(), "one handler thread per context");
        }
    }

    /**
     * Runs {@code iterations} of put(slot, v) then notify(slot, v) with {@code v = i * senders + sender}.
     *
     * @param m the sender's mapping
     * @param iterations how many
     * @param sender this sender's number
     * @param senders how many senders share the segment (slots interleave)
     */
    static void putThenNotify(CmiMapping m, int iterations, int sender, int senders) {
        for (int i = 0; i < iterations; i++) {
            long v = (long) i * senders + sender;
            long slot = 8 * v;
            m.putLong(slot, v);
            Notifications.notify(m, slot, v);
        }
    }

    /** As {@link #putThenNotify}, with each store and its notification in one {@code Notifications.putAndNotify}. */
    static void putAndNotify(CmiMapping m, int iterations, int sender, int senders) {
        java.lang.foreign.MemorySegment word = java.lang.foreign.Arena.ofAuto().allocate(8);
        for (int i = 0; i < iterations; i++) {
            long v = (long) i * senders + sender;
            long slot = 8 * v;
            word.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0, v);
            Notifications.putAndNotify(m, slot, word, slot, v);
        }
    }

    /**
     * As {@link #putAndNotify}, pipelined ({@code Notifications.putAndNotifyPipelined}), reusing
     * the source word at once; awaits every outcome at the end and returns the largest creator
     * backlog the replies reported.
     */
    static long putAndNotifyPipelined(CmiMapping m, int iterations, int sender, int senders) {
        java.lang.foreign.MemorySegment word = java.lang.foreign.Arena.ofAuto().allocate(8);
        java.util.List<io.softcmi.cmi.notify.PendingPut> pending = new java.util.ArrayList<>();
        for (int i = 0; i < iterations; i++) {
            long v = (long) i * senders + sender;
            long slot = 8 * v;
            word.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0, v);
            pending.add(Notifications.putAndNotifyPipelined(m, slot, word, slot, v));
        }
        long backlog = 0;
        for (io.softcmi.cmi.notify.PendingPut p : pending) {
            p.await();
            assertTrue(p.done(), "done after await");
            backlog = Math.max(backlog, p.creatorBacklog());
        }
        return backlog;
    }

    /** Takes one notification and checks it. */
    static Notification takeOne(NotificationInbox inbox, CmiSegment expectedSegment, long offset, long value)
            throws InterruptedException {
        Notification n = inbox.take(WAIT);
        assertTrue(n != null, "a notification arrived within " + WAIT);
        assertEquals(expectedSegment.id(), n.segment().id(), "segment, as the creator names it");
        assertEquals(offset, n.offset());
        assertEquals(value, n.value());
        return n;
    }

    static void assertEmpty(NotificationInbox inbox) {
        assertNull(inbox.poll(), "no other notification");
    }
}
