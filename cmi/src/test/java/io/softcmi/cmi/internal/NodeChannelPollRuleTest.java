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
 * How control callers count their replies ({@link ControlReplyCounts}, docs/architecture.md 7.5):
 * a poll that missed is a miss, even for a reply the node sent after being woken; a reply the
 * caller did not poll for counts by what the node says of it (a prompt reply of a polling node
 * is a hit, one it was slow to serve a miss, one it sent after being woken nothing). Against a
 * {@link FakeNode} that answers late or at once, with the flags each test gives it.
 */
class NodeChannelPollRuleTest {
    private static final Duration BOUND = Duration.ofSeconds(60);
    private static final int CALLS = 40;
    /** Fewer calls than would give a blocked caller two probes (one wait in 16 probes). */
    private static final int FEW = 20;
    private static final long LATE_NANOS = 300_000;

    private static void calls(NodeChannel ch, int n) {
        for (int i = 0; i < n; i++) {
            ch.call(new ControlMessage.CtlInfo(), ControlMessage.LongsValue.class);
        }
    }

    /**
     * @return whether the callers' polls pay after {@link #CALLS} late replies with {@code lateFlags},
     *     then (if {@code thenFlags >= 0}) {@link #FEW} prompt replies with {@code thenFlags}
     */
    private static boolean pollsPayAfter(int lateFlags, int thenFlags) throws Exception {
        // The rule under test is the hit rate's: feed the load rules an idle machine, so that
        // threads waiting for a core (a build beside the test) do not decide instead.
        java.util.function.Supplier<PollBudget.LoadSample> machine = PollBudget.runnableSource;
        PollBudget.runnableSource = () -> new PollBudget.LoadSample(0.1, 1);
        try (FakeNode node = new FakeNode(LATE_NANOS, lateFlags); NodeChannel ch = NodeChannel.connect(node.directory())) {
            for (int i = 0; i < 40; i++) {
                PollBudget.sampleRunnable();
            }
            return assertTimeoutPreemptively(BOUND, () -> {
                calls(ch, CALLS);
                if (thenFlags >= 0) {
                    assertFalse(ch.callerPollsPay(), "the callers block after late replies");
                    PollBudget.endBackOff(); // a poll preempted earlier (by another test's JVM work) keeps every poller off
                    node.answer(0, thenFlags);
                    calls(ch, FEW);
                }
                return ch.callerPollsPay();
            });
        } finally {
            PollBudget.runnableSource = machine;
            for (int i = 0; i < 40; i++) {
                PollBudget.sampleRunnable(); // back towards the real count
            }
        }
    }

    @Test
    void shouldStopPollingWhenPollsMissRepliesOfAWokenNode() throws Exception {
        assumeTrue(PollBudget.enabled(), "polling is off in this JVM");
        // Else a caller spins its whole budget on every call while the node parks between them.
        assertFalse(pollsPayAfter(Frame.FLAG_NODE_WOKE, -1), "polls that missed woken replies did not count");
    }

    @Test
    void shouldStopPollingWhileTheNodeIsSlowToServe() throws Exception {
        assumeTrue(PollBudget.enabled(), "polling is off in this JVM");
        assertFalse(pollsPayAfter(Frame.FLAG_NODE_SLOW, -1), "replies the node was slow to serve did not count as misses");
    }

    @Test
    void shouldPollAgainAsSoonAsTheNodeAnswersPromptly() throws Exception {
        assumeTrue(PollBudget.enabled(), "polling is off in this JVM");
        assertTrue(pollsPayAfter(Frame.FLAG_NODE_SLOW, 0), "prompt replies that blocked callers got did not count as hits");
    }

    @Test
    void shouldNotCountRepliesOfAWokenNodeThatBlockedCallersGot() throws Exception {
        assumeTrue(PollBudget.enabled(), "polling is off in this JVM");
        assertFalse(pollsPayAfter(Frame.FLAG_NODE_SLOW, Frame.FLAG_NODE_WOKE), "woken replies counted as hits");
    }
}
