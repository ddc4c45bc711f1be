package io.softcmi.node;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The remote contexts whose data connections this home refuses from now on (docs/failures.md,
 * "Torn stores"): contexts known to have ended, until their tickets expire, and every context
 * of a node declared dead that had said HELLO here before the declaration (its processes may
 * still run, for example while only their daemon is stopped), until that node imports from
 * this home again ({@link #nodeImportsAgain}). A context that ended may not open
 * a new data connection, start a store, or keep an open connection: {@link DataConnection}
 * looks again whenever {@link #changes} moved, and closes itself. Read without the engine's
 * lock (the handshake, the I/O loops); written by the engine.
 */
final class EndedWriters {
    /** Contexts known to have ended, with the time (ms) their tickets expire at the latest. */
    private final ConcurrentHashMap<WritesInFlight.Writer, Long> contexts = new ConcurrentHashMap<>();
    /** Per node (hex): the highest session id that said HELLO here. */
    private final ConcurrentHashMap<String, Long> sessionsSeen = new ConcurrentHashMap<>();
    /** Per node declared dead (hex): its sessions up to this id count as ended. */
    private final ConcurrentHashMap<String, Long> deadNodes = new ConcurrentHashMap<>();
    /** Counts the ends recorded, so that a connection looks up its writer only when one came. */
    private volatile int changes;

    /**
     * A context ended: refused until {@code expiresAtMillis}, after which its ticket is refused anyway.
     *
     * @param writer the context
     * @param nowMillis the time now, to forget the ends whose tickets expired
     * @param expiresAtMillis when its ticket expires at the latest
     */
    synchronized void contextEnded(WritesInFlight.Writer writer, long nowMillis, long expiresAtMillis) {
        contexts.values().removeIf(expiry -> expiry < nowMillis);
        contexts.put(writer, expiresAtMillis);
        changes++;
    }

    /**
     * A node was declared dead: each of its contexts that said HELLO here so far counts as ended
     * (dead is final). Its later contexts, with higher session ids, are new: a daemon numbers
     * them upwards (NodeState), also across its restarts.
     */
    synchronized void nodeDeclaredDead(String nodeHex) {
        Long seen = sessionsSeen.get(nodeHex);
        if (seen != null) {
            deadNodes.merge(nodeHex, seen, Math::max);
            changes++;
        }
    }

    /**
     * A node declared dead imports from this home again (its daemon runs, and a process of it,
     * maybe one that was running before, imports afresh, docs/failures.md "Dead is final"): its
     * contexts are served again. Until then, those that said HELLO before the declaration are not.
     */
    synchronized void nodeImportsAgain(String nodeHex) {
        if (deadNodes.remove(nodeHex) != null) {
            changes++;
        }
    }

    /** A context said HELLO: called before the handshake asks {@link #ended} about it. */
    void helloFrom(WritesInFlight.Writer writer) {
        sessionsSeen.merge(writer.node(), writer.session(), Math::max);
    }

    /** @return whether {@code writer}'s context ended: its connections and stores are refused */
    boolean ended(WritesInFlight.Writer writer) {
        if (contexts.containsKey(writer)) {
            return true;
        }
        Long dead = deadNodes.get(writer.node());
        return dead != null && writer.session() <= dead;
    }

    /** @return a number that moves whenever an end is recorded */
    int changes() {
        return changes;
    }
}
