package io.softcmi.systemtests;

import static io.softcmi.systemtests.NotificationTestSupport.WAIT;
import static io.softcmi.systemtests.NotificationTestSupport.assertEmpty;
import static io.softcmi.systemtests.NotificationTestSupport.takeOne;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.cmi.AttachFlag;
import io.softcmi.cmi.CmiAccessError;
import io.softcmi.cmi.CmiAccessException;
import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiException;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.ExportAttr;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.RemoteSegmentHandle;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.Access;
import io.softcmi.cmi.notify.DirectInlet;
import io.softcmi.cmi.notify.DirectRoute;
import io.softcmi.cmi.notify.Notification;
import io.softcmi.cmi.notify.NotificationInbox;
import io.softcmi.cmi.notify.Notifications;
import io.softcmi.cmi.notify.PendingPut;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Direct delivery ({@code Notifications.openInlet}/{@code routeTo}, docs/notifications.md):
 * stores and notifications from a context on daemon B straight into the process of a segment's
 * creator on daemon A, without A's daemon in between. Two daemons on loopback.
 */
@Timeout(120)
class DirectDeliveryTest {
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

    private record Served(CmiSegment segment, CmiMapping mapping, DirectInlet inlet) {
    }

    private static Served serve(ContextThread creator, long size) {
        return creator.call(c -> {
            CmiSegment s = c.segGet(size, Set.of());
            CmiMapping m = c.segAt(s, Set.of());
            return new Served(s, m, Notifications.openInlet(m));
        });
    }

    private static MemorySegment longs(long... values) {
        MemorySegment m = Arena.ofAuto().allocate(8L * values.length);
        for (int i = 0; i < values.length; i++) {
            m.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, values[i]);
        }
        return m;
    }

    @Test
    void shouldStoreThenNotifyStraightIntoTheCreatorInTheOrderSent() throws Exception {
        int messages = 2000;
        ContextThread creator = open(nodeA, "creator-A");
        ContextThread sender = open(nodeB, "sender-B");
        Served s = serve(creator, PAGE * 4); // 2000 slots of 8 bytes
        // The handler checks, for every notification, that its slot and every earlier one hold their values.
        AtomicInteger seen = new AtomicInteger();
        AtomicReference<String> wrong = new AtomicReference<>();
        CountDownLatch all = new CountDownLatch(1);
        Notifications.inbox(creator.context()).onNotificationInline(n -> {
            int i = seen.getAndIncrement();
            if (n.value() != i || s.mapping().getLong(8L * i) != 1000 + i) {
                wrong.compareAndSet(null, "notification " + i + " had value " + n.value() + ", slot " + s.mapping().getLong(8L * i));
            }
            if (i + 1 == messages) {
                all.countDown();
            }
        });
        byte[] address = s.inlet().address();
        sender.run(c -> {
            DirectRoute r = Notifications.routeTo(c, address);
            List<PendingPut> pending = new ArrayList<>();
            for (int i = 0; i < messages; i++) {
                pending.add(r.putAndNotify(8L * i, longs(1000 + i), 8L * i, i));
                if (pending.size() == 16) {
                    pending.removeFirst().await();
                }
            }
            pending.forEach(PendingPut::await);
        });
        assertTrue(all.await(WAIT.toSeconds(), TimeUnit.SECONDS), "every notification arrived: " + seen.get());
        assertEquals(null, wrong.get());
        assertEquals(messages, seen.get());
        assertEquals(messages, s.inlet().stores());
    }

    @Test
    void shouldStoreAPayloadLargerThanTheInputBufferWholeAndNotifyAfterIt() throws Exception {
        ContextThread creator = open(nodeA, "creator-A");
        ContextThread sender = open(nodeB, "sender-B");
        long size = 1 << 20;
        Served s = serve(creator, size + PAGE);
        MemorySegment data = Arena.ofAuto().allocate(size);
        for (long i = 0; i < size / 8; i++) {
            data.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, i * 31 + 7);
        }
        NotificationInbox inbox = Notifications.inbox(creator.context());
        byte[] address = s.inlet().address();
        sender.run(c -> {
            DirectRoute r = Notifications.routeTo(c, address);
            r.put(size, MemorySegment.ofArray(new long[] {-1})).await(); // a store alone, from a long[]: no notification
            r.putAndNotify(0, data, size, 42).await();
        });
        Notification n = takeOne(inbox, s.segment(), size, 42);
        assertEquals(sender.call(c -> c.nodeAddress()), n.sender(), "the sender's node is B");
        assertEmpty(inbox);
        MemorySegment back = creator.call(c -> {
            MemorySegment b = Arena.ofAuto().allocate(size);
            s.mapping().get(0, b);
            return b;
        });
        assertEquals(-1L, back.mismatch(data), "every byte of 1 MiB landed");
        assertEquals(-1L, (long) creator.<Long>call(c -> s.mapping().getLong(size)), "the store alone landed, then was not overwritten");
    }

    @Test
    void shouldRefuseStoresThroughAClosedInletWithTokenAndDeliverNothing() throws Exception {
        ContextThread creator = open(nodeA, "creator-A");
        ContextThread sender = open(nodeB, "sender-B");
        Served s = serve(creator, PAGE);
        byte[] address = s.inlet().address();
        DirectRoute r = sender.call(c -> Notifications.routeTo(c, address));
        sender.run(c -> r.putAndNotify(0, longs(5), 0, 5).await());
        takeOne(Notifications.inbox(creator.context()), s.segment(), 0, 5);
        s.inlet().close();
        CmiAccessException e = sender.call(c -> assertThrows(CmiAccessException.class,
            () -> r.putAndNotify(8, longs(6), 8, 6).await()));
        assertEquals(CmiAccessError.TOKEN, e.accessError());
        assertNull(Notifications.inbox(creator.context()).take(Duration.ofMillis(300)), "no notification after the refusal");
        assertEquals(0L, (long) creator.<Long>call(c -> s.mapping().getLong(8)), "nothing stored");
        // The connection stays usable for the process's other inlets.
        Served other = serve(creator, PAGE);
        byte[] otherAddress = other.inlet().address();
        sender.run(c -> Notifications.routeTo(c, otherAddress).putAndNotify(0, longs(7), 0, 7).await());
        takeOne(Notifications.inbox(creator.context()), other.segment(), 0, 7);
    }

    @Test
    void shouldRefuseAnAddressWithAWrongKeyWithToken() throws Exception {
        ContextThread creator = open(nodeA, "creator-A");
        ContextThread sender = open(nodeB, "sender-B");
        Served s = serve(creator, PAGE);
        byte[] address = s.inlet().address();
        byte[] forged = s.inlet().address();
        forged[20] ^= 1; // inside the key (after magic, port, inlet id and size)
        CmiAccessException e = sender.call(c -> assertThrows(CmiAccessException.class,
            () -> Notifications.routeTo(c, forged).putAndNotify(0, longs(9), 0, 9).await()));
        assertEquals(CmiAccessError.TOKEN, e.accessError());
        assertEquals(0L, (long) creator.<Long>call(c -> s.mapping().getLong(0)), "nothing stored");
        assertEquals(0, s.inlet().stores());
        // The right key on the same connection opens the inlet again; the wrong one still fails.
        sender.run(c -> Notifications.routeTo(c, address).put(0, longs(10)).await());
        assertEquals(10L, (long) creator.<Long>call(c -> s.mapping().getLong(0)));
        CmiAccessException again = sender.call(c -> assertThrows(CmiAccessException.class,
            () -> Notifications.routeTo(c, forged).put(8, longs(11)).await()));
        assertEquals(CmiAccessError.TOKEN, again.accessError());
        assertEquals(1, s.inlet().stores());
    }

    @Test
    void shouldCheckRangesAndArgumentsBeforeSending() throws Exception {
        ContextThread creator = open(nodeA, "creator-A");
        ContextThread sender = open(nodeB, "sender-B");
        Served s = serve(creator, PAGE);
        byte[] address = s.inlet().address();
        sender.run(c -> {
            DirectRoute r = Notifications.routeTo(c, address);
            assertEquals(PAGE, r.size());
            assertThrows(IndexOutOfBoundsException.class, () -> r.put(PAGE - 4, longs(1)));
            assertThrows(IndexOutOfBoundsException.class, () -> r.putAndNotify(0, longs(1), PAGE - 4, 1));
            r.close();
            assertThrows(IllegalStateException.class, () -> r.put(0, longs(1)));
            CmiException bad = assertThrows(CmiException.class, () -> Notifications.routeTo(c, new byte[] {1, 2, 3}));
            assertEquals(CmiError.INVAL, bad.error());
        });
        assertEquals(0, s.inlet().stores());
        // An inlet serves a writable local attach only.
        creator.run(c -> {
            CmiMapping ro = c.segAt(s.segment(), Set.of(AttachFlag.READ));
            CmiAccessException perm = assertThrows(CmiAccessException.class, () -> Notifications.openInlet(ro));
            assertEquals(CmiAccessError.PERM, perm.accessError());
        });
        byte[] handle = creator.call(c -> c.segExp(s.segment(), Set.of(ExportAttr.WRITE_THROUGH)).toBytes());
        byte[] token = creator.call(c -> c.tokNew(s.segment(), NodeAddress.ANY, EnumSet.of(Access.READ, Access.WRITE)).toBytes());
        sender.run(c -> {
            CmiSegment p = c.segImp(RemoteSegmentHandle.fromBytes(handle));
            c.segSetToken(p, CmiToken.fromBytes(token));
            CmiMapping imported = c.segAt(p, Set.of());
            CmiException inval = assertThrows(CmiException.class, () -> Notifications.openInlet(imported));
            assertEquals(CmiError.INVAL, inval.error());
        });
    }

    @Test
    void shouldFailWithTransientWhenTheCreatorsContextEnds() throws Exception {
        ContextThread creator = ClusterNodes.openContext(nodeA, "creator-A");
        ContextThread sender = open(nodeB, "sender-B");
        Served s = serve(creator, PAGE);
        byte[] address = s.inlet().address();
        DirectRoute r = sender.call(c -> Notifications.routeTo(c, address));
        sender.run(c -> r.put(0, longs(1)).await());
        creator.close(); // its inlet server closes every connection
        CmiAccessException e = sender.call(c -> assertThrows(CmiAccessException.class, () -> {
            for (int i = 0; i < 100; i++) { // the first write may still land in the socket
                r.put(0, longs(i)).await();
                Thread.sleep(10);
            }
        }));
        assertEquals(CmiAccessError.TRANSIENT, e.accessError());
        CmiAccessException again = sender.call(c -> assertThrows(CmiAccessException.class,
            () -> Notifications.routeTo(c, address)));
        assertEquals(CmiAccessError.TRANSIENT, again.accessError(), "nobody listens there any more");
    }

    @Test
    void shouldNotDeadlockWhenHandlersOfTwoProcessesSendToEachOtherAndWait() throws Exception {
        int rounds = 300;
        ContextThread a = open(nodeA, "peer-A");
        ContextThread b = open(nodeB, "peer-B");
        Served sa = serve(a, PAGE);
        Served sb = serve(b, PAGE);
        byte[] toA = sa.inlet().address();
        byte[] toB = sb.inlet().address();
        DirectRoute ab = a.call(c -> Notifications.routeTo(c, toB));
        DirectRoute ba = b.call(c -> Notifications.routeTo(c, toA));
        CountDownLatch done = new CountDownLatch(2);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        // Each inline handler answers every notification and waits for that answer's acknowledgement,
        // while the other side does the same: both handlers wait at once, on the two inlet threads.
        Notifications.inbox(a.context()).onNotificationInline(n -> answer(ab, n, rounds, done, failure));
        Notifications.inbox(b.context()).onNotificationInline(n -> answer(ba, n, rounds, done, failure));
        a.run(c -> ab.putAndNotify(0, longs(1), 0, 1).await());
        b.run(c -> ba.putAndNotify(0, longs(1), 0, 1).await());
        assertTrue(done.await(60, TimeUnit.SECONDS), "both sides reached " + rounds + " rounds; failure: " + failure.get());
        assertEquals(null, failure.get());
    }

    @Test
    void shouldReportEveryRefusalThoughAnswersAcknowledgeTheFramesAroundIt() throws Exception {
        int rounds = 200;
        ContextThread a = open(nodeA, "asker-A");
        ContextThread b = open(nodeB, "answerer-B");
        Served sa = serve(a, PAGE);
        Served open = serve(b, PAGE);
        Served closed = serve(b, PAGE);
        byte[] toA = sa.inlet().address();
        byte[] toOpen = open.inlet().address();
        byte[] toClosed = closed.inlet().address();
        closed.inlet().close();
        DirectRoute answers = b.call(c -> Notifications.routeTo(c, toA));
        // B answers every notification at once: each answer carries B's acknowledgement of A's frames.
        Notifications.inbox(b.context()).onNotificationInline(n -> answers.putAndNotify(0, longs(n.value()), 0, n.value()));
        java.util.concurrent.LinkedBlockingQueue<Long> answered = new java.util.concurrent.LinkedBlockingQueue<>();
        Notifications.inbox(a.context()).onNotificationInline(n -> answered.add(n.value()));
        int[] outcome = a.call(c -> {
            DirectRoute good = Notifications.routeTo(c, toOpen);
            DirectRoute bad = Notifications.routeTo(c, toClosed);
            int tokens = 0;
            for (int i = 0; i < rounds; i++) {
                PendingPut refused = bad.put(0, longs(i));          // refused: a refusal record
                PendingPut asked = good.putAndNotify(8, longs(i), 8, i); // answered: acknowledgements ride back
                Long back;
                try {
                    back = answered.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                if (back == null || back != i) {
                    throw new AssertionError("answer " + back + " to question " + i);
                }
                asked.await();
                try {
                    refused.await();
                } catch (CmiAccessException e) {
                    if (e.accessError() == CmiAccessError.TOKEN) {
                        tokens++;
                    }
                }
            }
            return new int[] {tokens};
        });
        assertEquals(rounds, outcome[0], "every store into the closed inlet was reported refused");
        assertEquals(rounds, open.inlet().stores());
        assertEquals(0, closed.inlet().stores());
    }

    /** A segment created, attached and served through an inlet by a worker process on A: its id and the inlet's address. */
    private record WorkerInlet(ClientProcess worker, long id, byte[] address) {
    }

    private static WorkerInlet workerInlet() throws IOException {
        ClientProcess worker = cluster.clients(nodeA).get(0);
        long id = Long.parseLong(worker.expect("create " + PAGE, "SEGMENT"));
        worker.expect("attach " + id, "ATTACHED");
        byte[] address = java.util.HexFormat.of().parseHex(worker.expect("inlet " + id, "INLET"));
        return new WorkerInlet(worker, id, address);
    }

    @Test
    void shouldFailRoutesToAProcessKilledWithSigkillAndKeepEveryStoreItAcknowledged() throws Exception {
        WorkerInlet w = workerInlet();
        ContextThread local = open(nodeA, "local-A");
        CmiMapping onA = local.call(c -> c.segAt(c.segFromId(w.id()), Set.of()));
        ContextThread sender = open(nodeB, "sender-B");
        DirectRoute r = sender.call(c -> Notifications.routeTo(c, w.address()));
        sender.run(c -> {
            for (int i = 0; i < 100; i++) {
                r.put(8L * i, longs(1000 + i)).await();
            }
        });
        w.worker().kill(); // kill -9
        local.run(c -> {
            for (int i = 0; i < 100; i++) {
                assertEquals(1000 + i, onA.getLong(8L * i), "acknowledged store " + i + " is in the segment");
            }
        });
        long start = System.nanoTime();
        CmiAccessException e = sender.call(c -> assertThrows(CmiAccessException.class, () -> {
            for (int i = 0; i < 100; i++) { // the first write may still land in the socket
                r.put(0, longs(i)).await();
                Thread.sleep(10);
            }
        }));
        assertEquals(CmiAccessError.TRANSIENT, e.accessError());
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(10), "noticed at once, not after a timeout");
        CmiAccessException again = sender.call(c -> assertThrows(CmiAccessException.class,
            () -> Notifications.routeTo(c, w.address())));
        assertEquals(CmiAccessError.TRANSIENT, again.accessError(), "nobody listens there any more");
    }

    @Test
    void shouldFailAWaitForAStoppedProcessWithTransientAfterTheRemoteTimeoutAndReconnectAfterItResumes() throws Exception {
        WorkerInlet w = workerInlet();
        ContextThread sender = open(nodeB, "sender-B");
        sender.run(c -> c.ctlReconfTimeout(Duration.ofSeconds(1)));
        DirectRoute r = sender.call(c -> Notifications.routeTo(c, w.address()));
        sender.run(c -> r.put(0, longs(1)).await());
        FailureScenarios.signal("STOP", w.worker().pid());
        try {
            awaitStopped(w.worker().pid()); // kill returns before every thread has stopped
            long start = System.nanoTime();
            CmiAccessException e = sender.call(c -> assertThrows(CmiAccessException.class, () -> r.put(8, longs(2)).await()));
            long waited = System.nanoTime() - start;
            assertEquals(CmiAccessError.TRANSIENT, e.accessError());
            assertTrue(waited >= TimeUnit.MILLISECONDS.toNanos(900) && waited < TimeUnit.SECONDS.toNanos(8),
                "failed after the 1 s remote timeout, not before and not never: " + waited / 1_000_000 + " ms");
        } finally {
            FailureScenarios.signal("CONT", w.worker().pid());
        }
        // The failed connection is closed; the same route connects again and is served.
        sender.run(c -> r.put(16, longs(3)).await());
        assertEquals("3", w.worker().expect("get-long " + w.id() + " 16", "VALUE"), "the resumed process stored it");
    }


    /** Waits (at most 10 s) until every thread of process {@code pid} is stopped ({@code T} in /proc). */
    private static void awaitStopped(long pid) throws IOException, InterruptedException {
        Deadline d = Deadline.in(Duration.ofSeconds(10));
        while (true) {
            boolean all = true;
            try (var tasks = java.nio.file.Files.list(java.nio.file.Path.of("/proc/" + pid + "/task"))) {
                for (java.nio.file.Path t : tasks.toList()) {
                    String stat = java.nio.file.Files.readString(t.resolve("stat"));
                    all &= stat.substring(stat.lastIndexOf(')') + 2).startsWith("T");
                }
            }
            if (all) {
                return;
            }
            assertTrue(!d.expired(), "process " + pid + " did not stop");
            Thread.sleep(5);
        }
    }

    private static void answer(DirectRoute r, Notification n, int rounds, CountDownLatch done, AtomicReference<Throwable> failure) {
        try {
            long next = n.value() + 1;
            if (next <= rounds) {
                r.putAndNotify(8, longs(next), 8, next).await();
            } else if (next == rounds + 1) {
                done.countDown();
            }
        } catch (RuntimeException e) {
            failure.compareAndSet(null, e);
        }
    }

    private static void assertNull(Object o, String message) {
        org.junit.jupiter.api.Assertions.assertNull(o, message);
    }

}
