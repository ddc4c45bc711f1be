package io.softcmi.cmi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiException;
import io.softcmi.wire.ControlMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;

/**
 * The control connection ending (the node closes it, or the process does) while several threads
 * are in calls: every call ends with the connection's error instead of waiting for the reply
 * timeout ({@link NodeChannel}, 60 s: the bound of the test is below it), also a call that
 * registered just as the reader thread failed the calls in flight. Against a {@link FakeNode}.
 * More rounds with {@code -Dsoftcmi.test.raceRounds=N}.
 */
class NodeChannelRaceTest {
    private static final int ROUNDS = Integer.getInteger("softcmi.test.raceRounds", 1);
    private static final Duration BOUND = Duration.ofSeconds(50);

    @Test
    void shouldEndEveryCallWhenTheConnectionEnds() throws Exception {
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        assertTimeoutPreemptively(BOUND, () -> {
            for (int round = 0; round < ROUNDS * 30; round++) {
                try (FakeNode node = new FakeNode(); NodeChannel ch = NodeChannel.connect(node.directory())) {
                    NodeChannel channel = ch;
                    long endAfter = 10 + (round * 37L) % 150;
                    List<Thread> threads = new ArrayList<>();
                    for (int k = 0; k < 3; k++) {
                        int kk = k;
                        threads.add(Thread.ofPlatform().start(() -> {
                            try {
                                while (true) {
                                    ch.call(new ControlMessage.CtlInfo(), ControlMessage.LongsValue.class);
                                }
                            } catch (CmiException e) {
                                if (e.error() != CmiError.INIT) {
                                    failures.add("thread " + kk + ": " + e);
                                }
                            } catch (Throwable t) {
                                failures.add("thread " + kk + ": " + t);
                            }
                        }));
                    }
                    while (node.requests() < endAfter) {
                        Thread.onSpinWait();
                    }
                    if (round % 2 == 0) {
                        node.noticeAndClose(new ControlMessage.NodeShutdown("test")); // the node ends it
                    } else {
                        channel.close(); // the process ends it
                    }
                    for (Thread t : threads) {
                        t.join();
                    }
                }
            }
        });
        assertEquals(List.of(), List.copyOf(failures));
    }

    /**
     * A malformed frame from the node, read by whichever thread reads then (a caller polling for
     * its reply, or the reader thread): the stream is lost, so every call in flight ends with the
     * connection's error and the connection is closed (its close listener runs). Before
     * 2026-11-29 a caller that read it failed alone and the connection stayed open with its
     * stream lost: later calls failed one by one as each read the bad frame again, and a call
     * whose thread did not read waited for the reply timeout (60 s). Without the fix this test
     * fails on the closed check.
     */
    @Test
    void shouldEndEveryCallWhenAThreadReadsAMalformedFrame() throws Exception {
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        assertTimeoutPreemptively(BOUND, () -> {
            for (int round = 0; round < ROUNDS * 20; round++) {
                try (FakeNode node = new FakeNode(); NodeChannel ch = NodeChannel.connect(node.directory())) {
                    node.garbleReply(10 + (round * 37L) % 150);
                    List<Thread> threads = new ArrayList<>();
                    for (int k = 0; k < 3; k++) {
                        int kk = k;
                        threads.add(Thread.ofPlatform().start(() -> {
                            try {
                                for (int i = 0; i < 100_000; i++) {
                                    ch.call(new ControlMessage.CtlInfo(), ControlMessage.LongsValue.class);
                                }
                                failures.add("thread " + kk + ": 100,000 calls on a stream with a malformed frame");
                            } catch (CmiException e) {
                                if (e.error() != CmiError.INIT) {
                                    failures.add("thread " + kk + ": " + e);
                                }
                            } catch (Throwable t) {
                                failures.add("thread " + kk + ": " + t);
                            }
                        }));
                    }
                    for (Thread t : threads) {
                        t.join();
                    }
                    assertEquals(true, ch.isClosed(), "the channel is closed after a malformed frame");
                }
            }
        });
        assertEquals(List.of(), List.copyOf(failures));
    }
}
