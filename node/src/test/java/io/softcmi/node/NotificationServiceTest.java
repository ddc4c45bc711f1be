package io.softcmi.node;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.cmi.internal.NodeAddressImpl;
import io.softcmi.wire.ControlMessage;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class NotificationServiceTest {
    private static final NodeAddressImpl HERE = new NodeAddressImpl(id(1), "127.0.0.1", 4000);
    private static final NodeAddressImpl THERE = new NodeAddressImpl(id(2), "127.0.0.1", 5000);

    private static byte[] id(int b) {
        byte[] id = new byte[16];
        id[15] = (byte) b;
        return id;
    }

    /** Records what it is sent; {@code backlog} is what it reports as unwritten. */
    private static final class Recorder implements Session.Notifier {
        final List<ControlMessage.NotificationNotice> sent = new CopyOnWriteArrayList<>();
        final AtomicInteger backlog = new AtomicInteger();
        final List<Integer> lines = new CopyOnWriteArrayList<>();
        final List<Runnable> resumes = new CopyOnWriteArrayList<>();

        @Override public void send(ControlMessage notice) { sent.add((ControlMessage.NotificationNotice) notice); }
        @Override public void sendNow(ControlMessage notice) { send(notice); }
        @Override public int pending() { return backlog.get(); }

        @Override
        public boolean whenBelow(int line, Runnable resume) {
            lines.add(line);
            resumes.add(resume);
            return true;
        }
    }

    private static Session session(long id, Recorder r) {
        return new Session(id, 100 + id, "user", "test", 11, r);
    }

    @Test
    void shouldDeliverALocalNotificationToTheCreatorNamingThisNode() {
        NotificationService service = new NotificationService(HERE);
        Recorder creator = new Recorder();
        Session s = session(1, creator);
        s.created.add(7L);
        service.register(7, s);
        assertTrue(service.deliverLocal(new ControlMessage.Notify(7, 64, 42)));
        assertEquals(1, creator.sent.size());
        ControlMessage.NotificationNotice n = creator.sent.get(0);
        assertEquals(7, n.segId());
        assertEquals(64, n.offset());
        assertEquals(42, n.value());
        assertArrayEquals(HERE.toBytes(), n.sender());
    }

    @Test
    void shouldNameARemoteSenderByTheAddressItsImportTaught() {
        NotificationService service = new NotificationService(HERE);
        Recorder creator = new Recorder();
        service.register(7, session(1, creator));
        assertEquals(NotificationService.Delivery.QUEUED, service.deliver(7, 0, 1, id(2)));
        assertArrayEquals(id(2), creator.sent.get(0).sender(), "unknown node: its id only");
        service.learnNode(THERE.toBytes());
        assertEquals(NotificationService.Delivery.QUEUED, service.deliver(7, 0, 2, id(2)));
        assertArrayEquals(THERE.toBytes(), creator.sent.get(1).sender());
    }

    @Test
    void shouldDropNotificationsOnceTheCreatorIsGoneOrTheSegmentReclaimed() {
        NotificationService service = new NotificationService(HERE);
        Recorder creator = new Recorder();
        Session s = session(1, creator);
        s.created.add(7L);
        s.created.add(8L);
        service.register(7, s);
        service.register(8, s);
        service.unregister(8);
        assertEquals(NotificationService.Delivery.NO_CREATOR, service.deliver(8, 0, 1, id(2)), "reclaimed");
        service.sessionClosed(s);
        assertEquals(NotificationService.Delivery.NO_CREATOR, service.deliver(7, 0, 1, id(2)), "creator gone");
        assertFalse(service.deliverLocal(new ControlMessage.Notify(99, 0, 1)), "never existed");
        assertEquals(List.of(), creator.sent);
    }

    @Test
    void shouldHoldARemoteNotificationToABackloggedCreatorBackInsteadOfRefusingIt() {
        NotificationService service = new NotificationService(HERE);
        Recorder creator = new Recorder();
        service.register(7, session(1, creator));
        Runnable resume = () -> { };
        creator.backlog.set(NotificationService.HIGH_WATER);
        assertFalse(service.mustWait(7, resume), "at the line: deliver now");
        assertEquals(List.of(), creator.resumes);

        creator.backlog.set(NotificationService.HIGH_WATER + 1);
        assertTrue(service.mustWait(7, resume), "past the line: the data path holds it back");
        assertEquals(List.of(resume), creator.resumes, "and is called back by the creator's writer");
        assertEquals(List.of(NotificationService.RESUME_AT), creator.lines, "once the backlog is down to the resume line");
        assertTrue(NotificationService.RESUME_AT < NotificationService.HIGH_WATER);
        assertFalse(service.mustWait(99, resume), "no creator: nothing to wait for");

        assertEquals(NotificationService.Delivery.QUEUED, service.deliver(7, 0, 1, id(2)), "never refused for the backlog");
        assertEquals(1, creator.sent.size());
    }

    @Test
    void shouldWaitForABackloggedCreatorsWriterBeforeQueueingMore() throws Exception {
        NotificationService service = new NotificationService(HERE);
        Recorder creator = new Recorder();
        Session s = session(1, creator);
        s.created.add(7L);
        service.register(7, s);
        creator.backlog.set(NotificationService.HIGH_WATER + 1);
        Thread sender = Thread.ofPlatform().start(() -> service.deliverLocal(new ControlMessage.Notify(7, 0, 1)));
        Thread.sleep(100);
        assertEquals(0, creator.sent.size(), "held back while the writer is behind");
        creator.backlog.set(0);
        sender.join(10_000);
        assertFalse(sender.isAlive());
        assertEquals(1, creator.sent.size(), "queued once the writer caught up");
    }
}
