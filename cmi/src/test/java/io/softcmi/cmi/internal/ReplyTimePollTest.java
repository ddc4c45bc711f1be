package io.softcmi.cmi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The control path's waiting rule, fed with made-up wait times and load samples: poll while the
 * measured waits are short and the last sample showed a free core, for twice the expected wait
 * within bounds; probe now and then otherwise, and go back to polling as soon as a probe shows a
 * fast peer. No timing: only the decisions.
 */
class ReplyTimePollTest {
    private static final long US = 1_000;

    @Test
    void shouldPollAFreshWaiterForTheShortestBudget() {
        assertEquals(ReplyTimePoll.MIN_BUDGET_NANOS, new ReplyTimePoll().budget(true, true));
    }

    @Test
    void shouldPollForTwiceTheExpectedWaitWithinBounds() {
        ReplyTimePoll p = new ReplyTimePoll();
        feed(p, 5 * US, true, 40);
        assertEquals(ReplyTimePoll.MIN_BUDGET_NANOS, p.budget(true, true), "never shorter than the minimum");
        feed(p, 60 * US, false, 40); // a peer that must wake up first: about 60 us a reply
        long b = p.budget(true, true);
        assertTrue(b > 100 * US && b <= 120 * US, "twice the expected wait: " + b);
        assertTrue(b <= ReplyTimePoll.MAX_BUDGET_NANOS);
    }

    @Test
    void shouldPollOnlyBrieflyAndNeverProbeWhileNoCoreWasFreeInTheLastSample() {
        ReplyTimePoll p = new ReplyTimePoll();
        feed(p, 5 * US, true, 40);
        assertEquals(ReplyTimePoll.MIN_BUDGET_NANOS, p.budget(true, false), "fast replies: the shortest poll only");
        feed(p, 60 * US, false, 40);
        assertTrue(p.budget(true, true) > ReplyTimePoll.MIN_BUDGET_NANOS, "with a free core: a longer poll");
        for (int i = 0; i < 3 * ReplyTimePoll.PROBE_EVERY; i++) {
            assertEquals(0, p.budget(true, false), "no longer poll, nor a probe, while threads wait for a core");
            p.waited(60 * US, false);
        }
        feed(p, 400 * US, false, 40);
        for (int i = 0; i < 3 * ReplyTimePoll.PROBE_EVERY; i++) {
            assertEquals(0, p.budget(true, false), "no probe while threads wait for a core");
            p.waited(400 * US, false);
        }
        assertEquals(0, p.budget(false, true), "nothing while polling is off or backing off after a preemption");
    }

    @Test
    void shouldLeaveBlockedModeWhenBlockedWaitsAreShort() {
        // Before: two ends that both blocked measured nothing that a 50 us probe could catch and
        // stayed blocked for whole runs. Blocked waits are measured too: short ones mean poll.
        ReplyTimePoll p = new ReplyTimePoll();
        feed(p, 400 * US, false, 40);
        assertEquals(0, p.budget(true, true), "slow replies: block");
        feed(p, 40 * US, false, 16); // the peer got fast again; this end still blocked
        assertTrue(p.budget(true, true) > 0, "blocked waits of 40 us: poll");
    }

    @Test
    void shouldProbeAndBelieveAProbeThatCaughtItsReply() {
        ReplyTimePoll p = new ReplyTimePoll();
        feed(p, 400 * US, false, 40); // blocked waits inflated by this end's own wake-ups
        int probes = 0;
        for (int i = 0; i < 4 * ReplyTimePoll.PROBE_EVERY; i++) {
            long b = p.budget(true, true);
            if (b > 0) {
                assertEquals(ReplyTimePoll.MAX_BUDGET_NANOS, b, "a probe polls for the longest budget");
                probes++;
            }
            p.waited(400 * US, false);
        }
        assertEquals(4, probes, "one probe every PROBE_EVERY waits");
        for (int i = 0; i < ReplyTimePoll.PROBE_EVERY; i++) {
            if (p.budget(true, true) > 0) {
                p.waited(8 * US, true); // the probe caught its reply 8 us after the request
                break;
            }
            p.waited(400 * US, false);
        }
        assertEquals(8 * US, p.expected(), "a caught probe replaces the inflated estimate");
        assertEquals(ReplyTimePoll.MIN_BUDGET_NANOS, p.budget(true, true), "polling again");
    }

    @Test
    void shouldStopPollingWhenRepliesBecomeSlow() {
        ReplyTimePoll p = new ReplyTimePoll();
        feed(p, 5 * US, true, 40);
        int polls = 0;
        for (int i = 0; i < 40; i++) {
            if (p.budget(true, true) > 0) {
                polls++;
            }
            p.waited(2_000 * US, false); // one long pause counts at most SAMPLE_CAP_NANOS
        }
        assertTrue(polls <= 12, "polled " + polls + " times of 40 against slow replies");
        assertTrue(p.expected() <= ReplyTimePoll.SAMPLE_CAP_NANOS);
        assertEquals(0, p.budget(true, true), "stopped");
    }

    @Test
    void shouldKeepPollingThroughAnOccasionalStall() {
        ReplyTimePoll p = new ReplyTimePoll();
        feed(p, 10 * US, true, 40);
        for (int i = 0; i < 200; i++) {
            assertTrue(p.budget(true, true) > 0, "wait " + i + ": still polling");
            p.waited(i % 20 == 0 ? 5_000 * US : 10 * US, i % 20 != 0); // a 5 ms stall every 20 waits
        }
    }

    private static void feed(ReplyTimePoll p, long nanos, boolean caught, int n) {
        for (int i = 0; i < n; i++) {
            p.budget(true, true);
            p.waited(nanos, caught);
        }
    }
}
