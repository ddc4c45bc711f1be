package io.softcmi.cmi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.softcmi.wire.DataProtocol;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * {@code putAndNotify}'s store and notification leave in <b>one</b> write, so the home finds both
 * in one read and is woken once per message instead of once per request; so do a queued request
 * and the next request sent, and a queue awaited before anything carried it goes out alone, in
 * one write. A channel that records each write stands for the socket.
 */
class RequestWriterTest {
    /** Records the bytes of each write call. */
    private static final class RecordingChannel extends GatheringWriteStub {
        final List<byte[]> writes = new ArrayList<>();

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) {
            ByteBuffer all = ByteBuffer.allocate(1 << 16);
            for (int i = offset; i < offset + length; i++) {
                all.put(srcs[i]);
            }
            writes.add(java.util.Arrays.copyOf(all.array(), all.position()));
            return all.position();
        }
    }

    @Test
    void shouldWriteTheStoreAndItsNotificationInOneWrite() throws Exception {
        try (FakeHome home = new FakeHome(FakeHome.Mode.ANSWER);
                RemoteConnection c = RemoteConnection.open(home.address(), new byte[8], null, 5_000_000_000L);
                Arena arena = Arena.ofConfined()) {
            RecordingChannel socket = new RecordingChannel();
            RequestWriter w = new RequestWriter(c, socket, socket, null, new ConcurrentHashMap<>(), null);
            MemorySegment src = arena.allocate(8);
            src.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0, 42);
            RemoteCall store = new RemoteCall();
            RemoteCall notice = new RemoteCall();
            notice.flags = DataProtocol.FLAG_AFTER_OK;
            w.sendPayloadThenRequest(store, DataProtocol.OP_PUT, 7, FakeHome.token(), 16, 8, 0, src,
                notice, DataProtocol.OP_NOTIFY, 24, 99, 0, System.nanoTime() + 5_000_000_000L);

            assertEquals(1, socket.writes.size(), "one write for both requests");
            ByteBuffer b = ByteBuffer.wrap(socket.writes.get(0)).order(ByteOrder.LITTLE_ENDIAN);
            assertEquals(2 * DataProtocol.REQUEST_HEADER + 8, b.remaining(), "store header, its payload, notification header");
            assertEquals(DataProtocol.OP_PUT, b.get(4));
            assertEquals(store.id, b.getLong(8));
            assertEquals(16, b.getLong(48), "the store's offset");
            assertEquals(42, b.getLong(DataProtocol.REQUEST_HEADER), "the payload right after the store's header");
            int second = DataProtocol.REQUEST_HEADER + 8;
            assertEquals(DataProtocol.REQUEST_HEADER - 4, b.getInt(second), "the notification has no payload");
            assertEquals(DataProtocol.OP_NOTIFY, b.get(second + 4));
            assertEquals(DataProtocol.FLAG_AFTER_OK, b.get(second + 5), "delivered only if the store landed");
            assertEquals(notice.id, b.getLong(second + 8));
            assertEquals(store.id + 1, notice.id, "served after the store");
            assertEquals(24, b.getLong(second + 48), "the notification's offset");
            assertEquals(99, b.getLong(second + 56), "the notification's value");
        }
    }

    @Test
    void shouldWriteQueuedRequestsInFrontOfTheNextRequestOrAloneWhenAwaitedFirst() throws Exception {
        try (FakeHome home = new FakeHome(FakeHome.Mode.ANSWER);
                RemoteConnection c = RemoteConnection.open(home.address(), new byte[8], null, 5_000_000_000L)) {
            RecordingChannel socket = new RecordingChannel();
            RequestWriter w = new RequestWriter(c, socket, socket, null, new ConcurrentHashMap<>(), null);
            long deadline = System.nanoTime() + 5_000_000_000L;
            // Carried by the next request's write.
            RemoteCall acquire = new RemoteCall();
            w.queue(acquire, DataProtocol.OP_ACQUIRE, 7, FakeHome.token(), 0, 5, 11, deadline);
            assertEquals(0, socket.writes.size(), "queued: nothing written");
            RemoteCall fill = new RemoteCall();
            w.send(fill, DataProtocol.OP_FILL, 7, FakeHome.token(), 1024, 1024, 11, null, 5_000_000_000L);
            assertEquals(1, socket.writes.size(), "the fill's write carries the queued request");
            ByteBuffer b = ByteBuffer.wrap(socket.writes.get(0)).order(ByteOrder.LITTLE_ENDIAN);
            assertEquals(2 * DataProtocol.REQUEST_HEADER, b.remaining());
            assertEquals(DataProtocol.OP_ACQUIRE, b.get(4), "the queued request first");
            assertEquals(acquire.id, b.getLong(8));
            assertEquals(5, b.getLong(56), "the queued request's a");
            assertEquals(DataProtocol.OP_FILL, b.get(DataProtocol.REQUEST_HEADER + 4));
            assertEquals(fill.id, b.getLong(DataProtocol.REQUEST_HEADER + 8));
            assertEquals(1024, b.getLong(DataProtocol.REQUEST_HEADER + 48), "the fill's offset");
            w.flush(acquire, deadline);
            w.flush(fill, deadline);
            assertEquals(1, socket.writes.size(), "nothing left to flush");
            w.send(new RemoteCall(), DataProtocol.OP_FILL, 7, FakeHome.token(), 0, 1024, 11, null, 5_000_000_000L);
            assertEquals(DataProtocol.REQUEST_HEADER, socket.writes.get(1).length, "the queue was emptied by the first write");
            // Awaited before anything carried them: the whole queue goes out alone, in order, once.
            RemoteCall first = new RemoteCall();
            RemoteCall second = new RemoteCall();
            w.queue(first, DataProtocol.OP_ACQUIRE, 7, FakeHome.token(), 0, 1, 11, deadline);
            w.queue(second, DataProtocol.OP_ACQUIRE, 8, FakeHome.token(), 0, 2, 11, deadline);
            assertEquals(2, socket.writes.size());
            w.flush(second, deadline);
            assertEquals(3, socket.writes.size(), "one write for the whole queue");
            b = ByteBuffer.wrap(socket.writes.get(2)).order(ByteOrder.LITTLE_ENDIAN);
            assertEquals(2 * DataProtocol.REQUEST_HEADER, b.remaining(), "both queued requests, in the order queued");
            assertEquals(first.id, b.getLong(8));
            assertEquals(second.id, b.getLong(DataProtocol.REQUEST_HEADER + 8));
            w.flush(first, deadline);
            assertEquals(3, socket.writes.size(), "written already");
        }
    }

    @Test
    void shouldAnswerAQueuedRequestOnceItsCallerAwaitsItOrTheNextRequestCarriesIt() throws Exception {
        try (FakeHome home = new FakeHome(FakeHome.Mode.ANSWER);
                RemoteConnection c = RemoteConnection.open(home.address(), new byte[8], null, 5_000_000_000L)) {
            long deadline = System.nanoTime() + 5_000_000_000L;
            RemoteCall alone = c.queue(DataProtocol.OP_GET, 7, FakeHome.token(), 0, 8, 0, null, 8, false, deadline);
            c.await(alone, deadline); // nothing else is sent: the await writes it
            assertEquals(0, alone.status);
            assertEquals(FakeHome.VALUE, alone.value);
            RemoteCall carried = c.queue(DataProtocol.OP_GET, 7, FakeHome.token(), 0, 8, 0, null, 8, false, deadline);
            RemoteCall load = c.load(7, FakeHome.token(), 8, 8, deadline); // its write carries the queued one
            assertEquals(FakeHome.VALUE, load.value);
            c.await(carried, deadline);
            assertEquals(FakeHome.VALUE, carried.value);
        }
    }
}
