package io.softcmi.cmi.internal.direct;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.util.ArrayDeque;
import java.util.Set;

/**
 * Which connections other processes opened an {@link InletServer}'s port keeps (docs/notifications.md,
 * "Bounds on the port"): at most {@link InletHost#maxAcceptedConnections} at once, the oldest that
 * has not said HELLO giving way to a new one at the bound (a new one is refused when every one
 * has), and none that has not said HELLO within {@link InletHost#helloTimeoutNanos}. Server thread
 * only, except the counters.
 */
final class InletAdmission {
    /** How a connection is dropped: the server's own way (its route fails, its key is cancelled). */
    interface Dropper {
        void drop(SelectionKey key, Exception why);
    }

    private final InletHost host;
    private final Dropper dropper;
    /** Accepted connections in the order they came, until they said HELLO or were dropped. */
    private final ArrayDeque<InletConnection> awaitingHello = new ArrayDeque<>();
    /** Connections refused because the bound held connections that all said HELLO. */
    private volatile long refused;
    /** Accepted connections dropped for not saying HELLO in time, or for a newer one at the bound. */
    private volatile long droppedWithoutHello;

    InletAdmission(InletHost host, Dropper dropper) {
        this.host = host;
        this.dropper = dropper;
    }

    /**
     * Whether the port may keep one more connection another process opened: below the bound, or
     * once the oldest that has not said HELLO is dropped for it.
     *
     * @param keys the server's registered keys (the accepted connections are counted among them)
     */
    boolean admit(Set<SelectionKey> keys) {
        if (acceptedAmong(keys) < host.maxAcceptedConnections() || dropOldestWithoutHello()) {
            return true;
        }
        refused = refused + 1;
        return false;
    }

    /** A connection another process opened is registered: its HELLO deadline starts now. */
    void accepted(InletConnection c) {
        c.acceptedAt = System.nanoTime();
        awaitingHello.add(c);
    }

    /** Drops the accepted connections that have not said HELLO within {@link InletHost#helloTimeoutNanos}. */
    void dropLateHellos(long now) {
        InletConnection c;
        while ((c = awaitingHello.peek()) != null) {
            if (c.helloed() || c.key == null || !c.key.isValid()) {
                awaitingHello.poll();
            } else if (now - c.acceptedAt > host.helloTimeoutNanos()) {
                awaitingHello.poll();
                droppedWithoutHello = droppedWithoutHello + 1;
                dropper.drop(c.key, new IOException("no HELLO in time"));
            } else {
                return;
            }
        }
    }

    /** @return connections refused at the bound, every one open having said HELLO */
    long refused() {
        return refused;
    }

    /** @return accepted connections dropped without a HELLO (too late, or for a newer one at the bound) */
    long droppedWithoutHello() {
        return droppedWithoutHello;
    }

    /** The accepted connections still registered (one whose route side closed it is not). */
    private static int acceptedAmong(Set<SelectionKey> keys) {
        int n = 0;
        for (SelectionKey k : keys) {
            if (k.isValid() && k.attachment() instanceof InletConnection c && c.acceptedAt != 0) {
                n++;
            }
        }
        return n;
    }

    /** @return whether a connection that had not said HELLO was dropped to make room */
    private boolean dropOldestWithoutHello() {
        InletConnection c;
        while ((c = awaitingHello.poll()) != null) {
            if (!c.helloed() && c.key != null && c.key.isValid()) {
                droppedWithoutHello = droppedWithoutHello + 1;
                dropper.drop(c.key, new IOException("no HELLO before a newer connection at the bound"));
                return true;
            }
        }
        return false;
    }
}
