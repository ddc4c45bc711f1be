package io.softcmi.systemtests;

import static io.softcmi.systemtests.NotificationTestSupport.WAIT;
import static io.softcmi.systemtests.NotificationTestSupport.assertEmpty;
import static io.softcmi.systemtests.NotificationTestSupport.takeOne;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.CmiAccessError;
import io.softcmi.cmi.CmiAccessException;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.RemoteSegmentHandle;
import io.softcmi.cmi.notify.Notification;
import io.softcmi.cmi.notify.NotificationInbox;
import io.softcmi.cmi.notify.Notifications;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Segment notifications across nodes (the remote path: {@code OP_NOTIFY} on the sender's data
 * connection to the home, then a notice to the creator there): two daemons A and B on loopback
 * with one cluster key; the creator's context is on A, the sender's on B, each a session of its
 * own. Handles and tokens cross as bytes. The dead-creator case uses a real worker process.
 */
@Timeout(120)
class CrossNodeNotificationTest {
    static final long PAGE = 4096;
    @RegisterExtension
    static final SystemTestResources RESOURCES = SystemTestResources.perClass();

    private static ClusterNodes cluster;
    private static NodeProcess nodeA;
    private static NodeProcess nodeB;
    private final List<ContextThread> opened = new ArrayList<>();

    @BeforeAll
    @Timeout(90)
    static void startCluster() throws IOException {
        cluster = ClusterNodes.create(RESOURCES);
        List<NodeProcess> nodes = cluster.start("A", "B");
        nodeA = nodes.get(0);
        nodeB = nodes.get(1);
    }

    @AfterEach
    final void closeContexts() {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        opened.clear();
    }

    private ContextThread open(NodeProcess node, String name) {
        ContextThread t = ClusterNodes.openContext(node, name);
        opened.add(t);
        return t;
    }

    /** A segment created, attached and exported by a context on A. */
    private record Shared(CmiSegment segment, CmiMapping mapping, byte[] handle) {
    }

    private static Shared share(ContextThread creator, long size) {
        return share(creator, size, Set.of());
    }

    /** As {@link #share(ContextThread, long)}, exported with {@code attrs}. */
    private static Shared share(ContextThread creator, long size, Set<io.softcmi.cmi.ExportAttr> attrs) {
        return creator.call(c -> {
            CmiSegment s = c.segGet(size, Set.of());
            return new Shared(s, c.segAt(s, Set.of()), c.segExp(s, attrs).toBytes());
        });
    }

    private static byte[] token(ContextThread creator, Shared s, Set<Access> rights) {
        return creator.call(c -> c.tokNew(s.segment(), NodeAddress.ANY, rights).toBytes());
    }

    /** Imports on {@code t}, sets the token, attaches and enables the thread. */
    private static CmiMapping importAndAttach(ContextThread t, byte[] handle, byte[] token) {
        return t.call(c -> {
            CmiSegment p = c.segImp(RemoteSegmentHandle.fromBytes(handle));
            c.segSetToken(p, CmiToken.fromBytes(token));
            CmiMapping m = c.segAt(p, Set.of());
            c.enable(true);
            return m;
        });
    }

    @Test
    void shouldDeliverARemoteNotificationToTheCreatorOnTheHomeNode() throws Exception {
        ContextThread creator = open(nodeA, "creator-A");
        ContextThread sender = open(nodeB, "sender-B");
        Shared s = share(creator, PAGE);
        CmiMapping m = importAndAttach(sender, s.handle(), token(creator, s, EnumSet.of(Access.READ, Access.WRITE)));
        sender.run(c -> Notifications.notify(m, PAGE - 8, -5));
        NotificationInbox inbox = Notifications.inbox(creator.context());
        Notification n = takeOne(inbox, s.segment(), PAGE - 8, -5);
        assertEquals(sender.call(c -> c.nodeAddress()), n.sender(), "the sender's node is B");
        assertEmpty(inbox);
        assertEquals(0, Notifications.inbox(sender.context()).size(), "the importer is not the creator");
    }

    @Test
    void shouldSeeEveryRemoteStoreBeforeItsNotification() throws Exception {
        int iterations = 1000;
        ContextThread creator = open(nodeA, "creator-A");
        ContextThread sender = open(nodeB, "sender-B");
        Shared s = share(creator, PAGE * 2); // 1000 slots of 8 bytes
        CmiMapping m = importAndAttach(sender, s.handle(), token(creator, s, EnumSet.of(Access.READ, Access.WRITE)));
        NotificationTestSupport.OrderingHandler handler =
            new NotificationTestSupport.OrderingHandler(s.mapping(), iterations, 1);
        Notifications.inbox(creator.context()).onNotification(handler);
        sender.run(c -> NotificationTestSupport.putThenNotify(m, iterations, 0, 1));
        handler.awaitAllAndAssert();
    }

    @Test
    void shouldSeeEveryRemoteStoreOfPutAndNotifyBeforeItsNotification() throws Exception {
        int iterations = 1000;
        ContextThread creator = open(nodeA, "creator-A");
        ContextThread sender = open(nodeB, "sender-B");
        Shared s = share(creator, PAGE * 2, Set.of(io.softcmi.cmi.ExportAttr.WRITE_THROUGH)); // uncached: one round trip
        CmiMapping m = importAndAttach(sender, s.handle(), token(creator, s, EnumSet.of(Access.READ, Access.WRITE)));
        NotificationTestSupport.OrderingHandler handler =
            new NotificationTestSupport.OrderingHandler(s.mapping(), iterations, 1);
        Notifications.inbox(creator.context()).onNotification(handler);
        sender.run(c -> NotificationTestSupport.putAndNotify(m, iterations, 0, 1));
        handler.awaitAllAndAssert();
    }

    @Test
    void shouldMoveBulkDataFromAndIntoSegmentsOfLongArraysOnAnUncachedImport() throws Exception {
        ContextThread creator = open(nodeA, "creator-A");
        ContextThread sender = open(nodeB, "sender-B");
        Shared s = share(creator, PAGE, Set.of(io.softcmi.cmi.ExportAttr.WRITE_THROUGH));
        CmiMapping m = importAndAttach(sender, s.handle(), token(creator, s, EnumSet.of(Access.READ, Access.WRITE)));
        // Heap segments of long[] have no ByteBuffer view: the data path copies them through bytes.
        long[] out = {1, -2, 3, Long.MIN_VALUE};
        sender.run(c -> m.put(64, java.lang.foreign.MemorySegment.ofArray(out)));
        assertEquals(Long.MIN_VALUE, (long) creator.<Long>call(c -> s.mapping().getLong(64 + 24)));
        long[] back = sender.call(c -> {
            long[] in = new long[4];
            m.get(64, java.lang.foreign.MemorySegment.ofArray(in));
            return in;
        });
        org.junit.jupiter.api.Assertions.assertArrayEquals(out, back);
        long[] word = {77};
        sender.run(c -> Notifications.putAndNotify(m, 8, java.lang.foreign.MemorySegment.ofArray(word), 8, 77));
        takeOne(Notifications.inbox(creator.context()), s.segment(), 8, 77);
        assertEquals(77L, (long) creator.<Long>call(c -> s.mapping().getLong(8)));
    }

    @Test
    void shouldNotifyOnlyWhenTheWaitersWordIsSetAfterTheStore() throws Exception {
        ContextThread creator = open(nodeA, "creator-A");
        ContextThread sender = open(nodeB, "sender-B");
        Shared s = share(creator, PAGE, Set.of(io.softcmi.cmi.ExportAttr.WRITE_THROUGH)); // uncached: one round trip
        CmiMapping m = importAndAttach(sender, s.handle(), token(creator, s, EnumSet.of(Access.READ, Access.WRITE)));
        NotificationInbox inbox = Notifications.inbox(creator.context());
        java.lang.foreign.MemorySegment word = java.lang.foreign.Arena.ofAuto().allocate(8);
        long waiters = 128;

        // Nobody counted in the waiters word: the store lands, no notification.
        word.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0, 11);
        sender.run(c -> Notifications.putAndNotifyIfWaiting(m, 16, word, 16, 11, waiters));
        assertEquals(11L, (long) creator.<Long>call(c -> s.mapping().getLong(16)), "the store landed");
        assertNull(inbox.take(Duration.ofMillis(300)), "no notification while nobody waits");

        // A waiter counts itself: the next store is notified, after its data.
        creator.run(c -> s.mapping().putLong(waiters, 1));
        word.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0, 12);
        sender.run(c -> Notifications.putAndNotifyIfWaiting(m, 24, word, 24, 12, waiters));
        takeOne(inbox, s.segment(), 24, 12);
        assertEquals(12L, (long) creator.<Long>call(c -> s.mapping().getLong(24)), "the data landed before the notification");

        // Out of range waiters word: refused before anything is stored.
        sender.run(c -> assertThrows(IndexOutOfBoundsException.class,
            () -> Notifications.putAndNotifyIfWaiting(m, 32, word, 32, 13, PAGE)));
        assertEquals(0L, (long) creator.<Long>call(c -> s.mapping().getLong(32)), "nothing stored");
    }

    @Test
    void shouldSeeEveryRemoteStoreOfAPipelinedPutAndNotifyBeforeItsNotificationInOrder() throws Exception {
        int iterations = 1000;
        ContextThread creator = open(nodeA, "creator-A");
        ContextThread sender = open(nodeB, "sender-B");
        Shared s = share(creator, PAGE * 2, Set.of(io.softcmi.cmi.ExportAttr.WRITE_THROUGH));
        CmiMapping m = importAndAttach(sender, s.handle(), token(creator, s, EnumSet.of(Access.READ, Access.WRITE)));
        NotificationTestSupport.OrderingHandler handler =
            new NotificationTestSupport.OrderingHandler(s.mapping(), iterations, 1);
        Notifications.inbox(creator.context()).onNotification(handler);
        long backlog = sender.call(c -> NotificationTestSupport.putAndNotifyPipelined(m, iterations, 0, 1));
        handler.awaitAllAndAssert();
        assertTrue(backlog >= 0 && backlog <= iterations, "backlog reported by the home: " + backlog);
    }

    /**
     * Back-pressure: a creator whose reader stalls (an inline handler that blocks it) and a
     * sender that pipelines many small put-and-notify messages, 16 unanswered at most, as VMMC's
     * SendData does. The home holds the sender's connection while the creator is far behind,
     * so the sender stops; once the creator reads again every message arrives, in order, and
     * none is refused (the home used to refuse past 5,000 unwritten notices: TRANSIENT).
     */
    @Test
    void shouldHoldAPipelinedSenderBackWhileTheCreatorIsStalledAndRefuseNothing() throws Exception {
        int messages = 20_000;
        int window = 16;
        ContextThread creator = open(nodeA, "creator-A");
        ContextThread sender = open(nodeB, "sender-B");
        Shared s = share(creator, PAGE, Set.of(io.softcmi.cmi.ExportAttr.WRITE_THROUGH)); // uncached: pipelined
        CmiMapping m = importAndAttach(sender, s.handle(), token(creator, s, EnumSet.of(Access.READ, Access.WRITE)));
        java.util.concurrent.atomic.AtomicLong sent = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicLong sentWhenReleased = new java.util.concurrent.atomic.AtomicLong(-1);
        long[] values = new long[messages];
        java.util.concurrent.atomic.AtomicInteger received = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicLong outOfOrder = new java.util.concurrent.atomic.AtomicLong(-1);
        Notifications.inbox(creator.context()).onNotificationInline(n -> {
            int k = received.get();
            if (k == 0) {
                // Stall the reader until the sender made no progress for a second (held back, or
                // refused), at most 30 s.
                long deadline = System.nanoTime() + 30_000_000_000L;
                long last = -1;
                long since = System.nanoTime();
                while (System.nanoTime() < deadline && sent.get() < messages) {
                    long now = System.nanoTime();
                    if (sent.get() != last) {
                        last = sent.get();
                        since = now;
                    } else if (now - since > 1_000_000_000L) {
                        break;
                    }
                    java.util.concurrent.locks.LockSupport.parkNanos(10_000_000);
                }
                sentWhenReleased.set(sent.get());
            }
            if (k < messages) {
                values[k] = n.value();
                if (n.value() != k && outOfOrder.get() < 0) {
                    outOfOrder.set(k);
                }
            }
            received.incrementAndGet();
        });
        sender.run(c -> {
            java.lang.foreign.MemorySegment word = java.lang.foreign.Arena.ofAuto().allocate(8);
            java.util.ArrayDeque<io.softcmi.cmi.notify.PendingPut> unanswered = new java.util.ArrayDeque<>();
            for (int i = 0; i < messages; i++) {
                while (!unanswered.isEmpty() && (unanswered.peekFirst().done() || unanswered.size() >= window)) {
                    unanswered.pollFirst().await(); // a refusal throws here
                }
                word.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0, i);
                unanswered.addLast(Notifications.putAndNotifyPipelined(m, 8, word, 0, i));
                sent.incrementAndGet();
            }
            while (!unanswered.isEmpty()) {
                unanswered.pollFirst().await();
            }
        });
        Deadline d = Deadline.in(Duration.ofSeconds(60));
        while (received.get() < messages && !d.expired()) {
            Thread.sleep(10);
        }
        assertEquals(messages, received.get(), "every message arrived");
        assertEquals(-1, outOfOrder.get(), "in order");
        assertEquals(messages - 1, values[messages - 1]);
        assertTrue(sentWhenReleased.get() < messages,
            "the stalled creator held the sender back (it had sent " + sentWhenReleased.get() + ")");
        assertEquals(messages - 1, (long) creator.<Long>call(c -> s.mapping().getLong(8)), "the last store landed");
        long holds = CmiAdmFigures.dataplane(nodeA, "notification_holds");
        assertTrue(holds >= 1, "cmiadm dataplane counts the holds: " + holds);
    }

    @Test
    void shouldReportARefusedPipelinedPutAndNotifyFromAwaitAndDeliverNothing() throws Exception {
        ContextThread creator = open(nodeA, "creator-A");
        ContextThread sender = open(nodeB, "sender-B");
        WriteThroughPage page = writeThroughPage(creator, sender);
        sender.run(c -> Notifications.putAndNotifyPipelined(page.mapping(), 16, page.word(), 0, 7).await());
        NotificationInbox inbox = Notifications.inbox(creator.context());
        takeOne(inbox, page.shared().segment(), 0, 7);
        assertEquals(42L, (long) creator.<Long>call(c -> page.shared().mapping().getLong(16)), "the data landed before the notification");

        creator.run(c -> c.tokDel(CmiToken.fromBytes(page.token())));
        sender.run(c -> {
            io.softcmi.cmi.notify.PendingPut p = Notifications.putAndNotifyPipelined(page.mapping(), 24, page.word(), 0, 8); // returns: on the wire
            CmiAccessException e = assertThrows(CmiAccessException.class, p::await);
            assertEquals(CmiAccessError.TOKEN, e.accessError(), "the store is refused with the deleted token");
        });
        assertNull(inbox.take(Duration.ofMillis(200)), "no notification about a store that failed");
        assertEquals(0L, (long) creator.<Long>call(c -> page.shared().mapping().getLong(24)), "nothing was stored");
    }

    @Test
    void shouldPipelinePutAndNotifyLargerThanOneRequestAndKeepTheOrder() throws Exception {
        ContextThread creator = open(nodeA, "creator-A");
        ContextThread sender = open(nodeB, "sender-B");
        long size = (5L << 20) + PAGE; // two stores of 2.5 MiB: three chunks each
        Shared s = share(creator, size, Set.of(io.softcmi.cmi.ExportAttr.WRITE_THROUGH));
        byte[] tokenBytes = token(creator, s, EnumSet.of(Access.READ, Access.WRITE));
        CmiMapping m = importAndAttach(sender, s.handle(), tokenBytes);
        long half = 5L << 19;
        java.lang.foreign.MemorySegment src = java.lang.foreign.Arena.ofAuto().allocate(2 * half, 8);
        for (long k = 0; k < 2 * half; k += 8) {
            src.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, k, k + 1);
        }
        sender.run(c -> {
            // Both sent before either is awaited. Whether the first's replies have been read when
            // the second returns is timing (the watchdog reads them for a write blocked a tick):
            // that the calls do not wait for replies is RemoteConnectionPipelinedStoreTest's, and
            // the refusal below, reported by await and not by the call, shows it here.
            io.softcmi.cmi.notify.PendingPut first = Notifications.putAndNotifyPipelined(m, PAGE, src.asSlice(0, half), 0, 1);
            io.softcmi.cmi.notify.PendingPut second = Notifications.putAndNotifyPipelined(m, PAGE + half, src.asSlice(half, half), 8, 2);
            first.await();
            second.await();
            assertTrue(first.done() && second.done(), "done once awaited");
        });
        NotificationInbox inbox = Notifications.inbox(creator.context());
        takeOne(inbox, s.segment(), 0, 1);
        takeOne(inbox, s.segment(), 8, 2);
        for (long k : new long[] {0, (1L << 20) - 8, 1L << 20, half - 8, half, 2 * half - 8}) {
            assertEquals(k + 1, (long) creator.<Long>call(c -> s.mapping().getLong(PAGE + k)), "word at " + k);
        }

        creator.run(c -> c.tokDel(CmiToken.fromBytes(tokenBytes)));
        sender.run(c -> {
            // Returns without the home's verdict (a store made synchronously would throw here).
            io.softcmi.cmi.notify.PendingPut p = Notifications.putAndNotifyPipelined(m, PAGE, src.asSlice(half, half), 0, 3);
            CmiAccessException e = assertThrows(CmiAccessException.class, p::await);
            assertEquals(CmiAccessError.TOKEN, e.accessError(), "every chunk is refused with the deleted token");
        });
        assertNull(inbox.take(Duration.ofMillis(200)), "no notification about a store that failed");
        assertEquals(1L, (long) creator.<Long>call(c -> s.mapping().getLong(PAGE)), "nothing was stored");
    }

    @Test
    void shouldPipelineAPutWithoutANotificationAndReportItsRefusalOnAwait() throws Exception {
        ContextThread creator = open(nodeA, "creator-A");
        ContextThread sender = open(nodeB, "sender-B");
        long size = (3L << 20) + PAGE; // a store of 2.5 MiB: three chunks
        Shared s = share(creator, size, Set.of(io.softcmi.cmi.ExportAttr.WRITE_THROUGH));
        byte[] tokenBytes = token(creator, s, EnumSet.of(Access.READ, Access.WRITE));
        CmiMapping m = importAndAttach(sender, s.handle(), tokenBytes);
        long big = 5L << 19;
        java.lang.foreign.MemorySegment src = java.lang.foreign.Arena.ofAuto().allocate(big, 8);
        for (long k = 0; k < big; k += 8) {
            src.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, k, k + 1);
        }
        sender.run(c -> {
            io.softcmi.cmi.notify.PendingPut first = Notifications.putPipelined(m, PAGE, src);
            io.softcmi.cmi.notify.PendingPut second = Notifications.putPipelined(m, 0, src.asSlice(8, 8));
            // A notification sent after them on the same mapping comes after both stores.
            Notifications.putAndNotify(m, 8, src.asSlice(16, 8), 16, 5);
            first.await();
            second.await();
            assertEquals(0L, first.creatorBacklog(), "a store alone reports no backlog");
        });
        NotificationInbox inbox = Notifications.inbox(creator.context());
        takeOne(inbox, s.segment(), 16, 5);
        assertNull(inbox.take(Duration.ofMillis(200)), "the stores themselves notified nobody");
        assertEquals(9L, (long) creator.<Long>call(c -> s.mapping().getLong(0)));
        assertEquals(17L, (long) creator.<Long>call(c -> s.mapping().getLong(8)));
        for (long k : new long[] {0, (1L << 20) - 8, 1L << 20, (2L << 20) + 8, big - 8}) {
            assertEquals(k + 1, (long) creator.<Long>call(c -> s.mapping().getLong(PAGE + k)), "word at " + k);
        }

        creator.run(c -> c.tokDel(CmiToken.fromBytes(tokenBytes)));
        sender.run(c -> {
            // Returns without the home's verdict (whether replies were read before it returned is timing).
            io.softcmi.cmi.notify.PendingPut p = Notifications.putPipelined(m, PAGE, src.asSlice(8, big - 8));
            CmiAccessException e = assertThrows(CmiAccessException.class, p::await);
            assertEquals(CmiAccessError.TOKEN, e.accessError(), "every chunk is refused with the deleted token");
        });
        assertEquals(1L, (long) creator.<Long>call(c -> s.mapping().getLong(PAGE)), "nothing was stored");
    }

    @Test
    void shouldDeliverNoNotificationWhenTheStoreOfPutAndNotifyFails() throws Exception {
        ContextThread creator = open(nodeA, "creator-A");
        ContextThread sender = open(nodeB, "sender-B");
        WriteThroughPage page = writeThroughPage(creator, sender);
        sender.run(c -> Notifications.putAndNotify(page.mapping(), 16, page.word(), 0, 7));
        NotificationInbox inbox = Notifications.inbox(creator.context());
        takeOne(inbox, page.shared().segment(), 0, 7);
        assertEquals(42L, (long) creator.<Long>call(c -> page.shared().mapping().getLong(16)), "the data landed before the notification");

        creator.run(c -> c.tokDel(CmiToken.fromBytes(page.token())));
        sender.run(c -> {
            CmiAccessException e = assertThrows(CmiAccessException.class, () -> Notifications.putAndNotify(page.mapping(), 24, page.word(), 0, 8));
            assertEquals(CmiAccessError.TOKEN, e.accessError(), "the store is refused with the deleted token");
        });
        assertNull(inbox.take(Duration.ofMillis(200)), "no notification about a store that failed");
        assertEquals(0L, (long) creator.<Long>call(c -> page.shared().mapping().getLong(24)), "nothing was stored");
    }

    @Test
    void shouldDropANotifyFlaggedAfterOkWhenTheRequestBeforeItFailed() throws Exception {
        ContextThread creator = open(nodeA, "creator-A");
        Shared s = share(creator, PAGE);
        byte[] good = token(creator, s, EnumSet.of(Access.READ, Access.WRITE));
        byte[] readOnly = token(creator, s, EnumSet.of(Access.READ));
        NotificationInbox inbox = Notifications.inbox(creator.context());
        byte[] ticket = RawDataClient.validTicket(cluster.clusterKey(), ClusterNodes.nodeId(nodeB));
        byte notify = io.softcmi.wire.DataProtocol.OP_NOTIFY;
        byte put = io.softcmi.wire.DataProtocol.OP_PUT;
        byte afterOk = io.softcmi.wire.DataProtocol.FLAG_AFTER_OK;
        try (RawDataClient raw = RawDataClient.open(ClusterNodes.port(nodeA), ticket, cluster.clusterKey())) {
            assertEquals(0, raw.request(put, s.segment().id(), good, 0, 8, 0, new byte[8]).status());
            assertEquals(0, raw.request(notify, afterOk, s.segment().id(), good, 0, 1, 0, new byte[0]).status(),
                "after a store that succeeded");
            takeOne(inbox, s.segment(), 0, 1);

            int refused = raw.request(put, s.segment().id(), readOnly, 0, 8, 0, new byte[8]).status();
            assertTrue(refused != 0, "a store through a read-only token fails");
            assertEquals(refused, raw.request(notify, afterOk, s.segment().id(), good, 0, 2, 0, new byte[0]).status(),
                "the flagged notification answers the failed store's status");
            assertNull(inbox.take(Duration.ofMillis(200)), "and is not delivered");

            raw.request(put, s.segment().id(), readOnly, 0, 8, 0, new byte[8]);
            assertEquals(0, raw.request(notify, s.segment().id(), good, 0, 3, 0, new byte[0]).status(),
                "without the flag a notification does not depend on the request before it");
            takeOne(inbox, s.segment(), 0, 3);
        }
    }

    @Test
    void shouldRoundTripBetweenHandlersOnTwoNodes() throws Exception {
        ContextThread a = open(nodeA, "ping-A");
        ContextThread b = open(nodeB, "pong-B");
        Shared segA = share(a, PAGE);
        Shared segB = share(b, PAGE);
        CmiMapping aToB = importAndAttach(a, segB.handle(), token(b, segB, EnumSet.of(Access.WRITE)));
        CmiMapping bToA = importAndAttach(b, segA.handle(), token(a, segA, EnumSet.of(Access.WRITE)));
        Notifications.inbox(b.context()).onNotification(n -> Notifications.notify(bToA, 8, n.value() + 1));
        NotificationInbox inboxA = Notifications.inbox(a.context());
        for (int i = 0; i < 50; i++) {
            long v = 2L * i;
            a.run(c -> Notifications.notify(aToB, 0, v));
            takeOne(inboxA, segA.segment(), 8, v + 1);
        }
    }

    @Test
    void shouldRefuseANotifyThroughAReadOnlyToken() throws Exception {
        ContextThread creator = open(nodeA, "creator-A");
        ContextThread sender = open(nodeB, "sender-B");
        Shared s = share(creator, PAGE);
        CmiMapping m = importAndAttach(sender, s.handle(), token(creator, s, EnumSet.of(Access.READ)));
        sender.run(c -> {
            CmiAccessException e = assertThrows(CmiAccessException.class, () -> Notifications.notify(m, 0, 1));
            assertEquals(CmiAccessError.PERM, e.accessError(), "a token without WRITE refuses a notification");
            assertThrows(IndexOutOfBoundsException.class, () -> Notifications.notify(m, PAGE, 1));
        });
        assertNull(Notifications.inbox(creator.context()).take(Duration.ofMillis(200)), "nothing was delivered");
    }

    @Test
    void shouldNotHangASenderWhoseSegmentsCreatorProcessDied() throws Exception {
        ClientProcess worker = cluster.clients(nodeA).get(0);
        long id = Long.parseLong(worker.expect("create " + PAGE, "SEGMENT"));
        worker.expect("attach " + id, "ATTACHED");
        byte[] handle = HexFormat.of().parseHex(worker.expect("export " + id, "HANDLE"));
        byte[] token = HexFormat.of().parseHex(worker.expect("token " + id + " ANY READ,WRITE", "TOKEN"));
        ContextThread local = open(nodeA, "local-A");
        CmiMapping onA = local.call(c -> c.segAt(c.segFromId(id), Set.of()));
        ContextThread remote = open(nodeB, "remote-B");
        CmiMapping onB = importAndAttach(remote, handle, token);
        remote.run(c -> Notifications.notify(onB, 0, 1)); // the creator is alive: accepted

        worker.kill();
        // Local: dropped at the node, never an error. Remote: once the home has marked the
        // segment (its creator is gone) the store-like check fails with TOKEN, as a store does.
        Deadline d = Deadline.in(WAIT);
        boolean refused = false;
        while (!refused && !d.expired()) {
            local.run(c -> Notifications.notify(onA, 0, 2));
            try {
                remote.run(c -> Notifications.notify(onB, 0, 3));
                Thread.sleep(20);
            } catch (CmiAccessException e) {
                assertEquals(CmiAccessError.TOKEN, e.accessError());
                refused = true;
            }
        }
        assertTrue(refused, "the home refuses notifications for a segment whose creator died");
        local.run(c -> Notifications.notify(onA, 8, 4));
    }

    /** A write-through page of {@code creator}'s, imported by {@code sender} with a READ and WRITE token, and an 8-byte source holding 42. */
    private record WriteThroughPage(Shared shared, byte[] token, CmiMapping mapping, java.lang.foreign.MemorySegment word) {
    }

    private WriteThroughPage writeThroughPage(ContextThread creator, ContextThread sender) {
        Shared s = share(creator, PAGE, Set.of(io.softcmi.cmi.ExportAttr.WRITE_THROUGH));
        byte[] tokenBytes = token(creator, s, EnumSet.of(Access.READ, Access.WRITE));
        CmiMapping m = importAndAttach(sender, s.handle(), tokenBytes);
        java.lang.foreign.MemorySegment word = java.lang.foreign.Arena.ofAuto().allocate(8);
        word.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0, 42);
        return new WriteThroughPage(s, tokenBytes, m, word);
    }
}
