package io.softcmi.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.softcmi.cmi.internal.PollBudget;
import org.junit.jupiter.api.Test;

/** Counting the connections that sent requests lately: distinct ones, over the last two windows, forgotten after. */
class RecentConnectionsTest {
    private static final long W = PollBudget.TRAFFIC_NANOS;
    private final RecentConnections recent = new RecentConnections();
    private final Member a = new Member();
    private final Member b = new Member();
    private final long now = 1_000 * W;

    /** A connection as the counter sees it. */
    private static final class Member implements RecentConnections.Member {
        private long window = -1;

        @Override
        public long trafficWindow() {
            return window;
        }

        @Override
        public void trafficWindow(long w) {
            window = w;
        }
    }

    @Test
    void shouldCountEachConnectionOncePerWindow() {
        recent.count(now); // starts a window
        for (int i = 0; i < 10; i++) {
            recent.served(a, now + i);
        }
        assertEquals(1, recent.count(now + 10), "one connection, however many requests");
        recent.served(b, now + 20);
        assertEquals(2, recent.count(now + 21));
    }

    @Test
    void shouldShowOtherLoopsTheCountAndNothingOnceTheCountingLoopStopped() {
        recent.count(now);
        recent.served(a, now + 1);
        recent.served(b, now + 2);
        assertEquals(2, recent.seen(now + 3), "as counted");
        assertEquals(2, recent.seen(now + W + 3), "a window later, no new count: the last window's");
        assertEquals(0, recent.seen(now + 2 * W + 3), "the loop blocked since: no connection active");
        assertEquals(0, recent.seen(now + 100 * W), "however long it stays blocked");
    }

    @Test
    void shouldKeepTheLastWindowsCountThroughTheNextAndForgetAfterTwo() {
        recent.count(now);
        recent.served(a, now + 1);
        recent.served(b, now + 2);
        assertEquals(2, recent.count(now + W + 1), "the window before still counts");
        recent.served(a, now + W + 2);
        assertEquals(2, recent.count(now + W + 3));
        assertEquals(1, recent.count(now + 2 * W + 5), "b was not served for a whole window: only a");
        assertEquals(0, recent.count(now + 10 * W), "nothing lately");
    }
}
