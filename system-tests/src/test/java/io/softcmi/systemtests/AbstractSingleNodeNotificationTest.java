package io.softcmi.systemtests;

import static io.softcmi.systemtests.NotificationTestSupport.WAIT;
import static io.softcmi.systemtests.NotificationTestSupport.assertEmpty;
import static io.softcmi.systemtests.NotificationTestSupport.takeOne;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.cmi.AttachFlag;
import io.softcmi.cmi.CmiAccessError;
import io.softcmi.cmi.CmiAccessException;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.notify.Notification;
import io.softcmi.cmi.notify.NotificationInbox;
import io.softcmi.cmi.notify.Notifications;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Segment notifications on one node (the local path: a one-way control message to the node,
 * a notice to the creator). Every context is a session of its own with the node, on a thread of
 * its own, as a separate process would be. Subclasses say which node: embedded or a daemon.
 */
@Timeout(120)
abstract class AbstractSingleNodeNotificationTest {
    static final long PAGE = 4096;
    private final List<ContextThread> opened = new ArrayList<>();

    /** @return a new context on the node under test, on a thread of its own */
    protected abstract ContextThread newContext(String name);

    private ContextThread open(String name) {
        ContextThread t = newContext(name);
        opened.add(t);
        return t;
    }

    @AfterEach
    final void closeContexts() {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        opened.clear();
    }

    /** A segment created and attached by {@code creator}. */
    private record Created(CmiSegment segment, CmiMapping mapping) {
    }

    private static Created create(ContextThread creator, long size) {
        return creator.call(c -> {
            CmiSegment s = c.segGet(size, Set.of());
            return new Created(s, c.segAt(s, Set.of()));
        });
    }

    private static CmiMapping attach(ContextThread t, long segmentId, Set<AttachFlag> flags) {
        return t.call(c -> c.segAt(c.segFromId(segmentId), flags));
    }

    @Test
    void shouldDeliverANotificationToTheSegmentCreator() throws Exception {
        ContextThread creator = open("creator");
        ContextThread sender = open("sender");
        Created seg = create(creator, PAGE);
        CmiMapping m = attach(sender, seg.segment().id(), Set.of());
        NotificationInbox inbox = Notifications.inbox(creator.context());
        assertNull(inbox.poll(), "nothing yet");

        sender.run(c -> Notifications.notify(m, 64, 42));
        Notification n = takeOne(inbox, seg.segment(), 64, 42);
        assertEquals(creator.call(c -> c.nodeAddress()), n.sender(), "a local sender is on the creator's node");
        assertEmpty(inbox);
        assertEquals(0, Notifications.inbox(sender.context()).size(), "the sender created nothing, so it gets nothing");
    }

    @Test
    void shouldDeliverACreatorsOwnNotificationAndKeepArrivalOrderForPoll() throws Exception {
        ContextThread creator = open("creator");
        Created seg = create(creator, PAGE);
        creator.run(c -> {
            for (int i = 0; i < 100; i++) {
                Notifications.notify(seg.mapping(), PAGE - 8, i);
            }
        });
        NotificationInbox inbox = Notifications.inbox(creator.context());
        for (int i = 0; i < 100; i++) {
            takeOne(inbox, seg.segment(), PAGE - 8, i);
        }
        assertNull(inbox.take(Duration.ofMillis(50)), "take returns null after its timeout");
    }

    @Test
    void shouldSeeEveryStoreBeforeItsNotificationWithHandlersOneAtATime() throws Exception {
        int iterations = 1000;
        int senders = 2;
        ContextThread creator = open("creator");
        Created seg = create(creator, PAGE * 4); // 2000 slots of 8 bytes
        NotificationTestSupport.OrderingHandler handler =
            new NotificationTestSupport.OrderingHandler(seg.mapping(), iterations * senders, senders);
        Notifications.inbox(creator.context()).onNotification(handler);
        List<CompletableFuture<Void>> running = new ArrayList<>();
        for (int s = 0; s < senders; s++) {
            int sender = s;
            ContextThread t = open("sender" + s);
            CmiMapping m = attach(t, seg.segment().id(), Set.of());
            running.add(CompletableFuture.runAsync(
                () -> t.run(c -> NotificationTestSupport.putThenNotify(m, iterations, sender, senders))));
        }
        for (CompletableFuture<Void> f : running) {
            f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        }
        handler.awaitAllAndAssert();
    }

    @Test
    void shouldSeeTheStoreOfPutAndNotifyBeforeItsNotification() throws Exception {
        int iterations = 500;
        ContextThread creator = open("creator");
        Created seg = create(creator, PAGE);
        NotificationTestSupport.OrderingHandler handler =
            new NotificationTestSupport.OrderingHandler(seg.mapping(), iterations, 1);
        Notifications.inbox(creator.context()).onNotification(handler);
        ContextThread t = open("sender");
        CmiMapping m = attach(t, seg.segment().id(), Set.of());
        t.run(c -> NotificationTestSupport.putAndNotify(m, iterations, 0, 1));
        handler.awaitAllAndAssert();
    }

    @Test
    void shouldNotifyOnlyWhenTheWaitersWordIsSetAfterTheLocalStore() throws Exception {
        ContextThread creator = open("creator");
        Created seg = create(creator, PAGE);
        NotificationInbox inbox = Notifications.inbox(creator.context());
        ContextThread t = open("sender");
        CmiMapping m = attach(t, seg.segment().id(), Set.of());
        java.lang.foreign.MemorySegment word = java.lang.foreign.Arena.ofAuto().allocate(8);
        word.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0, 21);
        t.run(c -> Notifications.putAndNotifyIfWaiting(m, 16, word, 16, 21, 128));
        assertNull(inbox.take(java.time.Duration.ofMillis(300)), "no notification while nobody waits");
        assertEquals(21L, (long) creator.<Long>call(c -> seg.mapping().getLong(16)), "the store landed");
        creator.run(c -> seg.mapping().putLong(128, 1));
        word.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0, 22);
        t.run(c -> Notifications.putAndNotifyIfWaiting(m, 24, word, 24, 22, 128));
        takeOne(inbox, seg.segment(), 24, 22);
    }

    @Test
    void shouldRunInlineHandlersInOrderOnOneThreadAfterTheStoreAndQueueNothing() throws Exception {
        int iterations = 1000;
        int senders = 2;
        ContextThread creator = open("creator");
        Created seg = create(creator, PAGE * 4);
        NotificationTestSupport.OrderingHandler handler =
            new NotificationTestSupport.OrderingHandler(seg.mapping(), iterations * senders, senders);
        NotificationInbox inbox = Notifications.inbox(creator.context());
        inbox.onNotificationInline(handler);
        List<CompletableFuture<Void>> running = new ArrayList<>();
        for (int s = 0; s < senders; s++) {
            int sender = s;
            ContextThread t = open("sender" + s);
            CmiMapping m = attach(t, seg.segment().id(), Set.of());
            running.add(CompletableFuture.runAsync(
                () -> t.run(c -> NotificationTestSupport.putThenNotify(m, iterations, sender, senders))));
        }
        CompletableFuture.allOf(running.toArray(CompletableFuture[]::new)).get(WAIT.toSeconds(), TimeUnit.SECONDS);
        handler.awaitAllAndAssert();
        assertEquals(0, inbox.size(), "a notification taken by an inline handler does not also wait in the inbox");
    }

    @Test
    void shouldLetAnInlineHandlerCallTheNodeWithoutNestingAndPassOnToTheHandlerThread() throws Exception {
        int count = 300;
        ContextThread creator = open("creator");
        ContextThread sender = open("sender");
        Created seg = create(creator, PAGE);
        CmiMapping m = attach(sender, seg.segment().id(), Set.of());
        NotificationInbox inbox = Notifications.inbox(creator.context());
        java.util.concurrent.atomic.AtomicInteger depth = new java.util.concurrent.atomic.AtomicInteger();
        List<String> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        LinkedBlockingQueue<Long> inlineSeen = new LinkedBlockingQueue<>();
        LinkedBlockingQueue<Long> laterSeen = new LinkedBlockingQueue<>();
        inbox.onNotificationInline(n -> {
            if (depth.incrementAndGet() != 1) {
                failures.add("inline handlers nested at " + n.value());
            }
            try {
                // A call to the node from the reader thread: it reads its own reply.
                if (creator.context().segStatus(seg.segment()).segSz() != PAGE) {
                    failures.add("segStatus answered a wrong size");
                }
                inlineSeen.add(n.value());
            } finally {
                depth.decrementAndGet();
            }
        });
        inbox.onNotification(n -> laterSeen.add(n.value()));
        sender.run(c -> {
            for (int i = 0; i < count; i++) {
                Notifications.notify(m, 0, i);
            }
        });
        for (long i = 0; i < count; i++) {
            assertEquals(Long.valueOf(i), inlineSeen.poll(WAIT.toSeconds(), TimeUnit.SECONDS), "inline, in order");
            assertEquals(Long.valueOf(i), laterSeen.poll(WAIT.toSeconds(), TimeUnit.SECONDS), "then the handler thread");
        }
        assertEquals(List.of(), failures);
        assertEquals(0, inbox.size());
        // The creator's own calls still get their replies while inline handlers ran.
        creator.run(c -> assertEquals(PAGE, c.segFromId(seg.segment().id()).size()));
    }

    @Test
    void shouldQueueNotificationsAgainOnceTheLastHandlerIsRemoved() throws Exception {
        ContextThread creator = open("creator");
        ContextThread sender = open("sender");
        Created seg = create(creator, PAGE);
        CmiMapping m = attach(sender, seg.segment().id(), Set.of());
        NotificationInbox inbox = Notifications.inbox(creator.context());
        LinkedBlockingQueue<Notification> handled = new LinkedBlockingQueue<>();
        Consumer<Notification> handler = handled::add;
        inbox.onNotification(handler);
        sender.run(c -> Notifications.notify(m, 0, 1));
        Notification first = handled.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertTrue(first != null && first.value() == 1, "the handler got the first notification");
        assertNull(inbox.poll(), "a handled notification does not also wait in the inbox");

        assertTrue(inbox.removeHandler(handler));
        assertTrue(!inbox.removeHandler(handler), "removed already");
        sender.run(c -> Notifications.notify(m, 8, 2));
        takeOne(inbox, seg.segment(), 8, 2);
        assertTrue(handled.isEmpty(), "a removed handler is not called");
    }

    @Test
    void shouldDeliverAFloodOfNotificationsWithoutDroppingTheCreator() throws Exception {
        int count = 50_000;
        ContextThread creator = open("creator");
        ContextThread sender = open("sender");
        Created seg = create(creator, PAGE);
        CmiMapping m = attach(sender, seg.segment().id(), Set.of());
        sender.run(c -> {
            for (int i = 0; i < count; i++) {
                Notifications.notify(m, 0, i);
            }
        });
        NotificationInbox inbox = Notifications.inbox(creator.context());
        for (int i = 0; i < count; i++) {
            Notification n = inbox.take(WAIT);
            assertTrue(n != null, "notification " + i + " of " + count + " arrived");
            assertEquals(i, n.value());
        }
        creator.run(c -> assertEquals(PAGE, c.segFromId(seg.segment().id()).size(), "the creator's session is alive"));
    }

    @Test
    void shouldLetAHandlerNotifyBackFromTheHandlerThread() throws Exception {
        ContextThread a = open("a");
        ContextThread b = open("b");
        Created segA = create(a, PAGE);
        Created segB = create(b, PAGE);
        CmiMapping bToA = attach(b, segA.segment().id(), Set.of());
        CmiMapping aToB = attach(a, segB.segment().id(), Set.of());
        Notifications.inbox(b.context()).onNotification(n -> Notifications.notify(bToA, 0, n.value() + 1));
        NotificationInbox inboxA = Notifications.inbox(a.context());
        for (int i = 0; i < 50; i++) {
            long v = 2L * i;
            a.run(c -> Notifications.notify(aToB, 0, v));
            takeOne(inboxA, segA.segment(), 0, v + 1);
        }
    }

    @Test
    void shouldRefuseANotifyThroughAReadOnlyAttachOrOutsideTheSegment() {
        ContextThread creator = open("creator");
        ContextThread sender = open("sender");
        Created seg = create(creator, PAGE);
        CmiMapping ro = attach(sender, seg.segment().id(), EnumSet.of(AttachFlag.READ));
        sender.run(c -> {
            CmiAccessException e = assertThrows(CmiAccessException.class, () -> Notifications.notify(ro, 0, 1));
            assertEquals(CmiAccessError.PERM, e.accessError());
        });
        assertThrows(IndexOutOfBoundsException.class, () -> Notifications.notify(seg.mapping(), PAGE - 7, 1));
        assertThrows(IndexOutOfBoundsException.class, () -> Notifications.notify(seg.mapping(), -1, 1));
        assertNull(Notifications.inbox(creator.context()).poll(), "refused notifications are not delivered");
    }

    @Test
    void shouldRefuseAPutAndNotifyWhoseNotifyOrWaitersWordIsOutsideTheSegmentBeforeStoringAnything() {
        ContextThread creator = open("creator");
        ContextThread sender = open("sender");
        Created seg = create(creator, PAGE);
        CmiMapping m = attach(sender, seg.segment().id(), Set.of());
        java.lang.foreign.MemorySegment word = java.lang.foreign.MemorySegment.ofArray(new long[] {77});
        sender.run(c -> {
            assertThrows(IndexOutOfBoundsException.class, () -> Notifications.putAndNotifyIfWaiting(m, 8, word, 8, 1, PAGE - 7));
            assertThrows(IndexOutOfBoundsException.class, () -> Notifications.putAndNotifyIfWaiting(m, 16, word, PAGE, 1, 0));
            assertThrows(IndexOutOfBoundsException.class, () -> Notifications.putAndNotify(m, 24, word, PAGE - 4, 1));
        });
        creator.run(c -> {
            assertEquals(0, seg.mapping().getLong(8), "stored although the waiters word was outside the segment");
            assertEquals(0, seg.mapping().getLong(16), "stored although the notify word was outside the segment");
            assertEquals(0, seg.mapping().getLong(24), "stored although the notify word was outside the segment");
        });
        assertNull(Notifications.inbox(creator.context()).poll(), "refused notifications are not delivered");
    }

    @Test
    void shouldDropANotificationWhoseCreatorHasEndedWithoutBlockingTheSender() throws Exception {
        ContextThread creator = newContext("creator"); // closed by the test itself
        ContextThread sender = open("sender");
        Created seg = create(creator, PAGE);
        CmiMapping m = attach(sender, seg.segment().id(), Set.of());
        creator.close();
        Deadline d = Deadline.in(Duration.ofSeconds(30));
        sender.run(c -> {
            for (int i = 0; i < 1000; i++) {
                Notifications.notify(m, 0, i); // dropped at the node; no error, no wait
            }
        });
        assertTrue(d.remaining().toNanos() > 0, "the sender was not held up");
        // The sender's session still works.
        Created own = create(sender, PAGE);
        sender.run(c -> Notifications.notify(own.mapping(), 0, 7));
        takeOne(Notifications.inbox(sender.context()), own.segment(), 0, 7);
    }
}
