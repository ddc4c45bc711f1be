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
 * The control callers' hit rate counts each reply by what the node says of it (docs/architecture.md
 * 7.5): a reply the node was slow to serve ({@link Frame#FLAG_NODE_SLOW}) is a miss, a reply it
 * sent after being woken ({@link Frame#FLAG_NODE_WOKE}) counts for nothing, and a prompt reply
 * of a polling node is a hit, even for a caller that blocked for it. Against a {@link FakeNode}.
 */
class NodeChannelPollRuleTest {
    private static final Duration BOUND = Duration.ofSeconds(60);
    private static final int CALLS = 40;
    private static final long LATE_NANOS = 300_000;

    private static void calls(NodeChannel ch, int n) {
        for (int i = 0; i < n; i++) {
            ch.call(new ControlMessage.CtlInfo(), ControlMessage.LongsValue.class);
        }
    }

    /** @return whether the callers' polls pay after {@link #CALLS} late replies with these flags */
    private static boolean pollsPayAfterLateReplies(int flags) throws Exception {
        try (FakeNode node = new FakeNode(LATE_NANOS, flags); NodeChannel ch = NodeChannel.connect(node.directory())) {
            return assertTimeoutPreemptively(BOUND, () -> {
                calls(ch, CALLS);
                return ch.callerPollsPay();
            });
        }
    }

    @Test
    void shouldKeepPollingWhenLateRepliesCameFromAWokenNode() throws Exception {
        assumeTrue(PollBudget.enabled(), "polling is off in this JVM");
        assertTrue(pollsPayAfterLateReplies(Frame.FLAG_NODE_WOKE), "late replies of a woken node lowered the callers' hit rate");
    }

    @Test
    void shouldStopPollingWhileTheNodeIsSlowToServe() throws Exception {
        assumeTrue(PollBudget.enabled(), "polling is off in this JVM");
        assertFalse(pollsPayAfterLateReplies(Frame.FLAG_NODE_SLOW), "replies the node was slow to serve did not count as misses");
    }

    @Test
    void shouldPollAgainAsSoonAsTheNodeAnswersPromptly() throws Exception {
        assumeTrue(PollBudget.enabled(), "polling is off in this JVM");
        try (FakeNode node = new FakeNode(LATE_NANOS, Frame.FLAG_NODE_SLOW);
                NodeChannel ch = NodeChannel.connect(node.directory())) {
            assertTimeoutPreemptively(BOUND, () -> {
                calls(ch, CALLS);
                assertFalse(ch.callerPollsPay(), "the callers block");
                node.answer(0, 0);
                // Blocked callers probe once in 16 waits; 20 prompt replies would give one probe at most.
                calls(ch, 20);
                assertTrue(ch.callerPollsPay(), "prompt replies that blocked callers got did not count as hits");
            });
        }
    }
}
