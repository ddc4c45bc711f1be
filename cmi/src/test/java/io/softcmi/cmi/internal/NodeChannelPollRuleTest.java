package io.softcmi.cmi.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.Frame;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A control caller's poll that misses its reply counts against polling only if the node was
 * polling too: a late reply flagged {@link Frame#FLAG_NODE_WOKE} paid the node's wake-up, which
 * says nothing about whether the caller's polls pay, and counting it kept both ends blocking
 * (docs/architecture.md 7.5). Against a {@link FakeNode} that answers every request 300 us late.
 */
class NodeChannelPollRuleTest {
    private static final Duration BOUND = Duration.ofSeconds(60);
    private static final int CALLS = 40;
    private static final long LATE_NANOS = 300_000;

    @Test
    void shouldKeepPollingWhenLateRepliesCameFromAWokenNode() throws Exception {
        assumeTrue(PollBudget.enabled(), "polling is off in this JVM");
        try (FakeNode node = new FakeNode(LATE_NANOS, Frame.FLAG_NODE_WOKE);
                NodeChannel ch = NodeChannel.connect(node.directory())) {
            assertTimeoutPreemptively(BOUND, () -> {
                for (int i = 0; i < CALLS; i++) {
                    ch.call(new ControlMessage.CtlInfo(), ControlMessage.LongsValue.class);
                }
                assertTrue(ch.callerPollsPay(), "late replies of a woken node lowered the callers' hit rate");
            });
        }
    }

    @Test
    void shouldStopPollingWhenAPollingNodeAnswersLate() throws Exception {
        assumeTrue(PollBudget.enabled(), "polling is off in this JVM");
        try (FakeNode node = new FakeNode(LATE_NANOS, 0); NodeChannel ch = NodeChannel.connect(node.directory())) {
            assertTimeoutPreemptively(BOUND, () -> {
                for (int i = 0; i < CALLS; i++) {
                    ch.call(new ControlMessage.CtlInfo(), ControlMessage.LongsValue.class);
                }
                assertFalse(ch.callerPollsPay(), "polls that missed the replies of a polling node still count");
            });
        }
    }
}
