package io.softcmi.node;

import io.softcmi.cmi.internal.PollBudget;

/**
 * How many of an I/O loop's connections sent requests lately: the distinct connections served in
 * the current window of {@link PollBudget#TRAFFIC_NANOS} or in the one before it (the larger
 * count). {@link DataIoLoop} does not poll while as many connections as there are cores are
 * active: their requests come as a stream, the loop finds them ready without polling, and on a
 * machine that runs the clients too a poll takes a core that a client needs (docs/architecture.md
 * 7.5, "When to poll"). Counting is for the loop thread only; {@link #seen} may be read by the
 * node's other loops, which sum their counts.
 */
final class RecentConnections {
    /** A connection as counted: it keeps the window in which it was last counted. */
    interface Member {
        /** @return the window in which it was last counted (-1 before any) */
        long trafficWindow();

        /** @param window the window in which it is counted now */
        void trafficWindow(long window);
    }

    private volatile long windowStart;
    private long window;
    private volatile int thisWindow;
    private volatile int lastWindow;

    /**
     * A connection was ready to be served.
     *
     * @param c the connection
     * @param now {@link System#nanoTime()} now
     */
    void served(Member c, long now) {
        roll(now);
        if (c.trafficWindow() != window) {
            c.trafficWindow(window);
            thisWindow++;
        }
    }

    /**
     * @param now {@link System#nanoTime()} now
     * @return the connections served in this window or the one before, whichever is more
     */
    int count(long now) {
        roll(now);
        return Math.max(thisWindow, lastWindow);
    }

    /**
     * The count as another thread sees it, without counting anything: what {@link #count} would
     * say now, except that a loop that has not counted since (it is blocked: no request came)
     * has no connection active once two windows have passed.
     *
     * @param now {@link System#nanoTime()} now
     * @return the connections served in the last window or two, as last counted; 0 when stale
     */
    int seen(long now) {
        long age = now - windowStart;
        if (age >= 2 * PollBudget.TRAFFIC_NANOS) {
            return 0;
        }
        return age >= PollBudget.TRAFFIC_NANOS ? thisWindow : Math.max(thisWindow, lastWindow);
    }

    private void roll(long now) {
        long age = now - windowStart;
        if (age >= PollBudget.TRAFFIC_NANOS) {
            lastWindow = age < 2 * PollBudget.TRAFFIC_NANOS ? thisWindow : 0;
            thisWindow = 0;
            windowStart = now;
            window++;
        }
    }
}
