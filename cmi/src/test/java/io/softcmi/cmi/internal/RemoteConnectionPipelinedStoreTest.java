package io.softcmi.cmi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.softcmi.wire.DataProtocol;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A pipelined store larger than one request ({@link RemoteConnection#startPutThenNotify}, behind
 * {@code Notifications.putAndNotifyPipelined}) is written whole, its chunks and then its
 * notification, without waiting for a reply: against a {@link FakeHome} that reads every request
 * but holds its replies, two such stores return with none of their calls answered, and once
 * the home answers, every call succeeds, the home having read them in the order they were sent.
 * Bounded by preemptive timeouts.
 */
class RemoteConnectionPipelinedStoreTest {
    private static final long SECOND = 1_000_000_000L;
    private static final Duration BOUND = Duration.ofSeconds(20);

    @Test
    void shouldWriteTwoStoresLargerThanOneRequestWithoutWaitingForTheirRepliesAndKeepTheirOrder() throws Exception {
        long half = 5L << 19; // 2.5 MiB: three chunks
        long base = 4096;
        try (FakeHome home = new FakeHome(FakeHome.Mode.ANSWER);
                RemoteConnection c = RemoteConnection.open(home.address(), new byte[8], null, 5 * SECOND);
                Arena arena = Arena.ofShared()) {
            MemorySegment src = arena.allocate(2 * half);
            long deadline = System.nanoTime() + 15 * SECOND;
            home.holdReplies();
            RemoteCall[][] stores = assertTimeoutPreemptively(BOUND, () -> new RemoteCall[][] {
                c.startPutThenNotify(1, FakeHome.token(), base, src.asSlice(0, half), 0, 1, -1, deadline),
                c.startPutThenNotify(1, FakeHome.token(), base + half, src.asSlice(half, half), 8, 2, -1, deadline)});
            // The home has not answered anything: both returned without a reply.
            for (RemoteCall[] calls : stores) {
                assertEquals(4, calls.length, "three chunks and the notification");
                for (RemoteCall call : calls) {
                    assertFalse(call.done, "a call answered while the home holds every reply");
                }
            }

            home.releaseReplies();
            for (RemoteCall[] calls : stores) {
                assertEquals(0, assertTimeoutPreemptively(BOUND, () -> c.finishPutThenNotify(calls, deadline)));
            }
            List<String> sent = new ArrayList<>();
            for (long store : new long[] {base, base + half}) {
                for (long at = 0; at < half; at += DataProtocol.MAX_PAYLOAD) {
                    sent.add("PUT " + (store + at));
                }
                sent.add("NOTIFY " + (store == base ? 0 : 8));
            }
            assertEquals(sent, home.requests(), "each store's chunks, then its notification, in the order sent");
            assertFalse(c.broken());
        }
    }
}
