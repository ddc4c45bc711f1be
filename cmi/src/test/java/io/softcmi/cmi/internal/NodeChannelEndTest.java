package io.softcmi.cmi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.wire.ControlMessage;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.RepeatedTest;

/**
 * A notice the node writes just before it closes the control connection (its
 * {@code NodeShutdown} when it stops) reaches the listener before the connection's end, also
 * when the reader thread reads the notice and the end of the stream in one turn. Before
 * 2026-11-28 the notice stayed queued in that case and the context reported only a lost
 * connection (seen once in CI, {@code CmidLifecycleSystemTest}).
 */
class NodeChannelEndTest {
    @RepeatedTest(20)
    void shouldDeliverANoticeThatArrivesWithTheEndOfTheStream() throws Exception {
        ControlMessage shutdown = new ControlMessage.NodeShutdown("node test is shutting down");
        List<Object> seen = new CopyOnWriteArrayList<>();
        CountDownLatch ended = new CountDownLatch(1);
        try (FakeNode node = new FakeNode(); NodeChannel ch = NodeChannel.connect(node.directory())) {
            ch.listen(seen::add, () -> {
                seen.add("end");
                ended.countDown();
            });
            node.noticeAndClose(shutdown);
            assertTrue(ended.await(10, TimeUnit.SECONDS), "the connection's end was noticed");
            assertEquals(List.of(shutdown, "end"), seen, "the notice first, then the end");
        }
    }
}
