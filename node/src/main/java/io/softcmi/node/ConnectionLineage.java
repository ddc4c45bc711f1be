package io.softcmi.node;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * The data connections of each remote context by the number its process gave them, so that a
 * new connection can <em>supersede</em> the one it replaces (docs/architecture.md §7.4,
 * "Deadlines"). A process whose call timed out gives up on its connection and opens another;
 * its HELLO names the number of the connection it replaces ({@code DataProtocol.OP_HELLO}).
 * Requests of the old connection may still sit, unread, in this home's socket buffer (the home
 * was stopped, or slow): served later, an old store would land after the same context's newer
 * store over the new connection. {@link #supersede} therefore stops the old connection from
 * serving anything more and waits for the pass its loop may be in, before the new connection's
 * HELLO is answered; the process sends nothing on the new connection before that answer.
 *
 * <p>Costs the data path two volatile writes and one volatile read per service pass of a
 * connection ({@link Member#passBegin}), not per request. Read and written without the engine's lock.
 */
final class ConnectionLineage {
    private record Key(WritesInFlight.Writer writer, long number) {
    }

    private final ConcurrentHashMap<Key, Member> members = new ConcurrentHashMap<>();

    /**
     * One connection's place in its context's lineage: whether it was superseded, and whether its
     * loop is inside a service pass (odd count). The count is written by the one thread serving
     * the connection at a time.
     */
    static final class Member {
        /**
         * @return a member of its own for a connection that gave no number (nothing can supersede
         *     it); one per connection, so that loops never write a shared pass count
         */
        static Member unnumbered() {
            return new Member(null, null);
        }

        private final ConnectionLineage lineage;
        private final Key key;
        private volatile boolean superseded;
        private volatile int passes;
        private volatile DataConnection connection;

        private Member(ConnectionLineage lineage, Key key) {
            this.lineage = lineage;
            this.key = key;
        }

        /**
         * A service pass of the connection begins (its loop's thread).
         *
         * @return false if the connection was superseded: the pass must serve nothing and close it
         */
        boolean passBegin() {
            passes = passes + 1; // volatile write, then the volatile read: a supersede sees the pass or the pass sees it
            return !superseded;
        }

        /** The service pass ends (its loop's thread). */
        void passEnd() {
            passes = passes + 1;
        }

        /** @return whether a newer connection of the same context superseded this one */
        boolean superseded() {
            return superseded;
        }

        /** The connection this member stands for, once it exists (it may be superseded before). */
        void attach(DataConnection c) {
            connection = c;
            if (superseded && key != null) {
                c.cut();
            }
        }

        /** The connection closed: its lineage forgets it. */
        void leave() {
            if (lineage != null) {
                lineage.members.remove(key, this);
            }
        }
    }

    /**
     * Enters a new connection of {@code writer}, before its HELLO is answered.
     *
     * @param writer the context its ticket proved
     * @param number the number its process gave it (0: none; it cannot be superseded)
     * @return its member, or null if the context has a live connection with that number already
     */
    Member enter(WritesInFlight.Writer writer, long number) {
        if (number == 0) {
            return Member.unnumbered();
        }
        Key key = new Key(writer, number);
        Member m = new Member(this, key);
        return members.putIfAbsent(key, m) == null ? m : null;
    }

    /**
     * Supersedes {@code writer}'s connection {@code number}, if it is still open: from now on it
     * serves nothing more (the rest of a store it is reading is not applied) and it is closed at
     * its loop; waits until the service pass it may be in has ended.
     *
     * @param writer the context
     * @param number the number of the connection replaced
     * @param deadlineNanos {@link System#nanoTime()} after which to give up waiting
     * @param stats where a superseded open connection is counted
     * @return true once nothing more of the old connection can land (also if it was gone), false
     *         if its pass did not end by the deadline
     */
    boolean supersede(WritesInFlight.Writer writer, long number, long deadlineNanos, DataPathStats stats) {
        Member m = members.get(new Key(writer, number));
        if (m == null) {
            return true;
        }
        if (!m.superseded) {
            stats.connectionsSuperseded.increment();
        }
        m.superseded = true;
        DataConnection c = m.connection;
        if (c != null) {
            c.cut(); // closes it at its loop, so that it does not wait for its socket to be readable again
        }
        int pass = m.passes;
        if ((pass & 1) == 0) {
            return true;
        }
        while (m.passes == pass) {
            if (System.nanoTime() - deadlineNanos > 0) {
                return false;
            }
            LockSupport.parkNanos(10_000); // a pass serves what the socket holds and ends: microseconds
        }
        return true;
    }

    /** @return connections with a number, open now (for tests) */
    int size() {
        return members.size();
    }
}
