package io.softcmi.node;

import io.softcmi.cmi.internal.NodeAddressImpl;
import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.PeerMessage;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The failure detector between daemons (issue 8): a node watches every peer it shares an
 * export/import relationship with, by heartbeats over one authenticated peer connection per peer
 * ({@link PeerMessage.PeerPing}, answered at once by the peer's listener without the engine's
 * lock). A peer not heard from for {@code --suspect-after} milliseconds (default 1000) is
 * <em>suspected</em>; heard again, it <em>recovers</em>; silent for {@code --dead-after}
 * milliseconds (default 5000) it is <em>declared dead</em>, which is final for the relationships
 * that existed then. {@link FailureEvents} turns each transition into events.
 *
 * <p>Threads: one ticker (a daemon platform thread) judges every peer each quarter of the
 * suspicion time; each watched peer has a virtual thread that sends the heartbeats, blocking on
 * its socket with a timeout, so a hung peer ({@code SIGSTOP}) costs nothing but that thread.
 * A refused connection ({@code kill -9} of the peer) is retried each interval.
 */
final class PeerMonitor implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("io.softcmi.node");

    /** What the node believes of a peer. */
    enum Health {
        /** Heard from within the suspicion time. */
        UP,
        /** Silent longer than the suspicion time. */
        SUSPECT,
        /** Silent longer than the death time: declared dead. */
        DEAD
    }

    private final NodeState state;
    private final ReentrantLock engineLock;
    private final FailureEvents events;
    private final PeerClient peers;
    private final long suspectNanos;
    private final long deadNanos;
    private final long intervalMs;
    private final Map<String, Watch> watches = new ConcurrentHashMap<>();
    /** Peers declared dead and no longer watched, newest last, for {@code cmiadm peers} (at most {@value #DEAD_KEPT}). */
    private final Map<String, PeerView> dead = new java.util.LinkedHashMap<>();
    private static final int DEAD_KEPT = 64;
    private final Thread ticker;
    /** Judging pauses of the ticker itself; used by the ticker thread only. */
    private final StillnessWatch stillness;
    private volatile boolean closed;

    /** One watched peer. */
    private final class Watch {
        final NodeAddressImpl peer;
        final Thread pinger;
        volatile long lastHeard = System.nanoTime();
        /** When the last heartbeat was answered ({@link System#nanoTime()}); 0 before the first. */
        volatile long lastAnswer;
        /** The last heartbeat's round trip, ns; -1 before the first. */
        volatile long rttNanos = -1;
        final java.util.concurrent.atomic.LongAdder heartbeats = new java.util.concurrent.atomic.LongAdder();
        volatile Health health = Health.UP;
        /** When {@link #health} last changed (or the watch started), wall-clock ms. */
        volatile long sinceMillis = System.currentTimeMillis();
        volatile boolean stopped;

        Watch(NodeAddressImpl peer) {
            this.peer = peer;
            this.pinger = Thread.ofVirtual().name("cmid-heartbeat-" + peer.port()).unstarted(this::ping);
        }

        private void ping() {
            ControlMessage ping = new PeerMessage.PeerPing(state.address.toBytes());
            int timeout = (int) Math.max(50, suspectNanos / 1_000_000);
            while (!stopped && !closed) {
                try (PeerClient.Link link = peers.open(peer, timeout)) {
                    while (!stopped && !closed) {
                        long sent = System.nanoTime();
                        if (!(link.call(ping) instanceof ControlMessage.Ok)) {
                            throw new IOException("unexpected answer to a heartbeat");
                        }
                        long now = System.nanoTime();
                        rttNanos = now - sent;
                        lastAnswer = now;
                        heartbeats.increment();
                        lastHeard = now;
                        Thread.sleep(intervalMs);
                    }
                } catch (IOException | RuntimeException e) {
                    LOG.log(Level.DEBUG, "heartbeat to {0} failed: {1}", peer, e.getMessage());
                    try {
                        Thread.sleep(intervalMs);
                    } catch (InterruptedException stop) {
                        return;
                    }
                } catch (InterruptedException stop) {
                    return;
                }
            }
        }

        void stop() {
            stopped = true;
            pinger.interrupt();
        }
    }

    /**
     * Creates the monitor (not yet running).
     *
     * @param state the node
     * @param engineLock the engine's lock, held while events are generated
     * @param events turns transitions into events
     * @param peers connects to peers
     * @param suspectMs silence after which a peer is suspected
     * @param deadMs silence after which a peer is declared dead
     */
    PeerMonitor(NodeState state, ReentrantLock engineLock, FailureEvents events, PeerClient peers, long suspectMs,
            long deadMs) {
        this.state = state;
        this.engineLock = engineLock;
        this.events = events;
        this.peers = peers;
        this.suspectNanos = suspectMs * 1_000_000;
        this.deadNanos = Math.max(deadMs, suspectMs) * 1_000_000;
        this.intervalMs = Math.max(10, suspectMs / 4);
        // Two looks are normally one interval apart; more than half the suspicion time beyond that
        // means the ticker could not watch for long enough to miss heartbeats it would have seen.
        this.stillness = new StillnessWatch(intervalMs * 1_000_000 + suspectNanos / 2, System.nanoTime());
        this.ticker = Thread.ofPlatform().daemon().name("cmid-peer-monitor").unstarted(this::run);
    }

    /** Starts judging peers. */
    void start() {
        ticker.start();
    }

    private void run() {
        while (!closed) {
            try {
                tick();
                Thread.sleep(intervalMs);
            } catch (InterruptedException stop) {
                return;
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, "failure detector tick failed", e);
            }
        }
    }

    /** One round: start and stop watches as relationships change, then judge every peer. */
    void tick() {
        Set<NodeAddressImpl> wanted;
        engineLock.lock();
        try {
            wanted = events.watchedPeers();
        } finally {
            engineLock.unlock();
        }
        for (NodeAddressImpl p : wanted) {
            watches.computeIfAbsent(FailureEvents.hex(p), k -> {
                synchronized (dead) {
                    dead.remove(k); // watched again: a new relationship with a peer that came back
                }
                Watch w = new Watch(p);
                w.pinger.start();
                LOG.log(Level.DEBUG, "watching peer {0}", p);
                return w;
            });
        }
        for (Watch w : watches.values()) {
            if (wanted.stream().noneMatch(p -> java.util.Arrays.equals(p.nodeId(), w.peer.nodeId()))) {
                w.stop();
                watches.remove(FailureEvents.hex(w.peer));
                engineLock.lock();
                try {
                    events.peerForgotten(w.peer);
                } finally {
                    engineLock.unlock();
                }
                continue;
            }
            judge(w);
        }
    }

    private void judge(Watch w) {
        long now = System.nanoTime();
        long stoodStill = stillness.look(now);
        if (stoodStill > 0) {
            // This daemon itself stood still (SIGSTOP, a long pause, no core for it): the silence
            // was ours, so every peer gets a fresh chance before it is judged.
            LOG.log(Level.INFO, "the failure detector stood still for {0} ms: peers are judged afresh",
                stoodStill / 1_000_000);
            for (Watch each : watches.values()) {
                each.lastHeard = now;
            }
        }
        long silence = now - w.lastHeard;
        Health next = silence > deadNanos ? Health.DEAD : silence > suspectNanos ? Health.SUSPECT : Health.UP;
        if (next == w.health) {
            return;
        }
        engineLock.lock();
        try {
            if (w.health == Health.UP) {
                events.peerSuspected(w.peer); // a peer always passes through suspicion: CMAP comes first
                w.health = Health.SUSPECT;
            }
            if (next == Health.UP) {
                events.peerRecovered(w.peer);
            } else if (next == Health.DEAD) {
                events.peerDead(w.peer);
                w.stop(); // its relationships are gone or dead now: the next tick forgets it
            }
            w.health = next;
            w.sinceMillis = System.currentTimeMillis();
            if (next == Health.DEAD) {
                synchronized (dead) {
                    dead.put(FailureEvents.hex(w.peer), view(w, System.nanoTime()));
                    if (dead.size() > DEAD_KEPT) {
                        dead.remove(dead.keySet().iterator().next());
                    }
                }
            }
        } finally {
            engineLock.unlock();
        }
    }

    /**
     * What the node believes of a peer, for {@code cmiadm} and tests.
     *
     * @param nodeHex the peer's node id in hex
     * @return its health, or null if it is not watched
     */
    Health health(String nodeHex) {
        Watch w = watches.get(nodeHex);
        return w == null ? null : w.health;
    }

    /**
     * One peer as the failure detector sees it, for {@code cmiadm peers} and the metrics.
     *
     * @param peer its address
     * @param health what the node believes of it
     * @param lastAnswerNanos when its last heartbeat answer came ({@link System#nanoTime()}), 0 if none came
     * @param rttNanos the last heartbeat's round trip, -1 if none came
     * @param heartbeats heartbeats it answered
     * @param sinceMillis when its health last changed (or watching began), wall-clock ms
     */
    record PeerView(NodeAddressImpl peer, Health health, long lastAnswerNanos, long rttNanos, long heartbeats,
            long sinceMillis) {
        /**
         * @param now {@link System#nanoTime()} now
         * @return ms since the last heartbeat answer, -1 if none came
         */
        long lastHeardAgoMillis(long now) {
            return lastAnswerNanos == 0 ? -1 : Math.max(0, (now - lastAnswerNanos) / 1_000_000);
        }
    }

    private static PeerView view(Watch w, long now) {
        return new PeerView(w.peer, w.health, w.lastAnswer, w.rttNanos, w.heartbeats.sum(), w.sinceMillis);
    }

    /**
     * Every peer the node watches, and the last {@value #DEAD_KEPT} declared dead and no longer
     * watched. Reads no engine state (no lock needed).
     *
     * @return the peers, watched first
     */
    java.util.List<PeerView> peers() {
        long now = System.nanoTime();
        java.util.List<PeerView> out = new java.util.ArrayList<>();
        Set<String> seen = new java.util.HashSet<>();
        for (Map.Entry<String, Watch> e : watches.entrySet()) {
            out.add(view(e.getValue(), now));
            seen.add(e.getKey());
        }
        synchronized (dead) {
            for (Map.Entry<String, PeerView> e : dead.entrySet()) {
                if (!seen.contains(e.getKey())) {
                    out.add(e.getValue());
                }
            }
        }
        return out;
    }

    @Override
    public void close() {
        closed = true;
        ticker.interrupt();
        for (Watch w : watches.values()) {
            w.stop();
        }
    }
}
