package io.softcmi.cmi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.softcmi.wire.ControlMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The control connection's reader thread stays off the socket while callers read their own
 * replies ({@link ReaderStandby}), and nothing is lost by it: notices are delivered in order,
 * during a stream of calls and after it, and callers on several threads all get their replies.
 * Against a {@link FakeNode} that answers at once.
 */
class NodeChannelStandbyTest {
    private static final Duration BOUND = Duration.ofSeconds(60);
    private static final int CALLS = 3_000;

    @Test
    void shouldNotWakeTheReaderForRepliesTheCallersReadThemselves() throws Exception {
        try (FakeNode node = new FakeNode(); NodeChannel ch = NodeChannel.connect(node.directory())) {
            assertTimeoutPreemptively(BOUND, () -> {
                for (int i = 0; i < CALLS / 2; i++) { // warm-up: the poll budget learns that polling pays
                    ch.call(new ControlMessage.CtlInfo(), ControlMessage.LongsValue.class);
                }
                long wakeups = ch.readerWakeups();
                long own = ch.ownReads();
                for (int i = 0; i < CALLS; i++) {
                    ch.call(new ControlMessage.CtlInfo(), ControlMessage.LongsValue.class);
                }
                long ownReads = ch.ownReads() - own;
                long readerWakeups = ch.readerWakeups() - wakeups;
                // Only meaningful if the callers polled: where the cores are busy, PollBudget has them block,
                // and the reader reads every reply (the build before the stand-by: the reader took the read lock
                // first and its callers read 0 of 3000 replies themselves against this fake node).
                assumeTrue(ownReads >= CALLS / 2, "callers read " + ownReads + " of " + CALLS + " replies themselves");
                long readByReader = CALLS - ownReads;
                assertTrue(readerWakeups <= 2 * readByReader + CALLS / 10,
                    "reader woke " + readerWakeups + " times in " + CALLS + " calls, " + ownReads + " read by their callers");
            });
        }
    }

    @Test
    void shouldDeliverNoticesInOrderDuringAndAfterAStreamOfCalls() throws Exception {
        List<Long> seen = new CopyOnWriteArrayList<>();
        try (FakeNode node = new FakeNode(); NodeChannel ch = NodeChannel.connect(node.directory())) {
            ch.listen(m -> seen.add(((ControlMessage.NotificationNotice) m).value()), () -> { });
            assertTimeoutPreemptively(BOUND, () -> {
                long sent = 0;
                for (int i = 0; i < CALLS; i++) {
                    if (i % 100 == 0) {
                        node.notice(new ControlMessage.NotificationNotice(1, 0, sent++, new byte[0]));
                    }
                    ControlMessage.LongsValue v = ch.call(new ControlMessage.CtlInfo(), ControlMessage.LongsValue.class);
                    assertEquals(16, v.values().length);
                }
                // One more once the calls stopped: the reader, perhaps standing by, must still take it.
                node.notice(new ControlMessage.NotificationNotice(1, 0, sent++, new byte[0]));
                while (seen.size() < sent) {
                    Thread.sleep(1);
                }
                List<Long> expected = new ArrayList<>();
                for (long i = 0; i < sent; i++) {
                    expected.add(i);
                }
                assertEquals(expected, seen);
            });
        }
    }

    @Test
    void shouldAnswerCallersOnSeveralThreads() throws Exception {
        try (FakeNode node = new FakeNode(); NodeChannel ch = NodeChannel.connect(node.directory())) {
            assertTimeoutPreemptively(BOUND, () -> {
                int threads = 4;
                int each = 500;
                List<Throwable> failures = new CopyOnWriteArrayList<>();
                List<Thread> ts = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    ts.add(Thread.ofPlatform().start(() -> {
                        try {
                            for (int i = 0; i < each; i++) {
                                ch.call(new ControlMessage.CtlInfo(), ControlMessage.LongsValue.class);
                            }
                        } catch (Throwable e) {
                            failures.add(e);
                        }
                    }));
                }
                for (Thread t : ts) {
                    t.join();
                }
                assertEquals(List.of(), failures);
                assertEquals(threads * each, node.requests());
            });
        }
    }
}
