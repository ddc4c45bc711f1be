package io.softcmi.cmi.internal;

import io.softcmi.cmi.CmiAccessError;
import io.softcmi.cmi.TraceFacility;
import io.softcmi.cmi.TraceLevel;
import io.softcmi.wire.ControlMessage;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * A context's data connections, one per home node (pipelined, shared by the context's threads),
 * or one per home and thread when {@value #PER_THREAD_PROPERTY} is {@code true} (to measure the
 * alternative). A connection is opened on first use with a node ticket from the context's own
 * daemon, fetched once and fetched again when a home refuses it (tickets expire).
 *
 * <p>Each home has its own lock: opening a connection to a home that does not answer holds up
 * only the threads that want that home, and only until the context's reconfiguration timeout.
 */
final class RemoteConnections {
    /** System property: give every thread its own connection to each home. */
    static final String PER_THREAD_PROPERTY = "softcmi.data.connectionPerThread";
    private static final boolean PER_THREAD = Boolean.getBoolean(PER_THREAD_PROPERTY);
    private final NodeChannel channel;
    private final Tracer tracer;
    private final LongSupplier timeoutNanos;
    private final Map<Object, Link> links = new ConcurrentHashMap<>();
    private final ReentrantLock ticketLock = new ReentrantLock();
    private volatile byte[] ticket;
    /** TLS to homes, as the own daemon uses it (null: plain TCP); fetched with the first ticket. */
    private volatile io.softcmi.wire.ClusterTls tls;
    /**
     * Proxies whose home the node declared dead: access through them fails with SINVAL. Proxies
     * of the same home imported after it came back are not among them (dead is final for the old
     * proxies only).
     */
    private final java.util.Set<Long> deadProxies = ConcurrentHashMap.newKeySet();

    /** Numbers of this context's data connections (the home's {@code ConnectionLineage}). */
    private final java.util.concurrent.atomic.AtomicLong connectionNumbers = new java.util.concurrent.atomic.AtomicLong();

    /**
     * One home's connection and the lock that serialises opening it. A connection opened after
     * another supersedes the last one whose HELLO was answered (the last that may have carried
     * requests), also across attempts that failed meanwhile.
     */
    private static final class Link {
        final ReentrantLock lock = new ReentrantLock();
        volatile RemoteConnection connection;
        /** The number of the last connection opened through this link (guarded by {@link #lock}); 0: none yet. */
        long lastOpened;
    }

    private record ThreadHome(NodeAddressImpl home, Thread thread) {
    }

    RemoteConnections(NodeChannel channel, Tracer tracer, LongSupplier timeoutNanos) {
        this(channel, tracer, timeoutNanos, null);
    }

    /**
     * @param ticket the node ticket to start with, plain TCP (null: asked of the node at first use)
     */
    RemoteConnections(NodeChannel channel, Tracer tracer, LongSupplier timeoutNanos, byte[] ticket) {
        this.channel = channel;
        this.tracer = tracer;
        this.timeoutNanos = timeoutNanos;
        this.ticket = ticket;
    }

    /** @return whether this context speaks plain TCP to other nodes (no TLS), asking its node the first time */
    boolean plainTcp() {
        if (ticket == null) {
            freshTicket(null, timeoutNanos.getAsLong());
        }
        return tls == null;
    }

    /** @return the deadline ({@link System#nanoTime()}) of a remote call starting now */
    long deadline() {
        return System.nanoTime() + timeoutNanos.getAsLong();
    }

    /**
     * The data connection to a home node.
     *
     * @throws io.softcmi.cmi.CmiAccessException TRANSIENT if the home cannot be reached in time
     */
    RemoteConnection get(NodeAddressImpl home, long segmentId, long offset) {
        if (!deadProxies.isEmpty() && deadProxies.contains(segmentId)) {
            throw Errors.access(CmiAccessError.SINVAL, segmentId, offset);
        }
        Object key = PER_THREAD ? new ThreadHome(home, Thread.currentThread()) : home;
        Link link = links.get(key);
        if (link == null) {
            link = links.computeIfAbsent(key, k -> new Link());
        }
        RemoteConnection c = link.connection;
        if (c != null && !c.broken()) {
            return c;
        }
        long timeout = timeoutNanos.getAsLong();
        try {
            if (!link.lock.tryLock(timeout, TimeUnit.NANOSECONDS)) {
                throw Errors.access(CmiAccessError.TRANSIENT, segmentId, offset);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw Errors.access(CmiAccessError.TRANSIENT, segmentId, offset);
        }
        try {
            c = link.connection;
            if (c == null || c.broken()) {
                c = open(home, segmentId, offset, timeout, link.lastOpened);
                link.lastOpened = c.number();
                link.connection = c;
            }
            return c;
        } finally {
            link.lock.unlock();
        }
    }

    /**
     * The data connection to a home node if one is open and healthy, for a request that is not
     * worth opening one for (a detached cache's {@code FORGET}).
     *
     * @return the connection, or null
     */
    RemoteConnection getIfOpen(NodeAddressImpl home) {
        Link link = links.get(PER_THREAD ? new ThreadHome(home, Thread.currentThread()) : home);
        RemoteConnection c = link == null ? null : link.connection;
        return c != null && !c.broken() ? c : null;
    }

    private RemoteConnection open(NodeAddressImpl home, long segmentId, long offset, long timeout, long supersedes) {
        try {
            byte[] t = ticket;
            if (t == null) {
                t = freshTicket(null, timeout);
            }
            try {
                return RemoteConnection.open(home, t, tls, timeout, connectionNumbers.incrementAndGet(), supersedes);
            } catch (RemoteConnection.TicketRefusedException refused) {
                tracer.trace(TraceFacility.MEM, TraceLevel.INFO, "home node " + home + " refused the node ticket; fetching a new one");
                return RemoteConnection.open(home, freshTicket(t, timeout), tls, timeout, connectionNumbers.incrementAndGet(),
                    supersedes);
            }
        } catch (IOException | RuntimeException e) {
            tracer.trace(TraceFacility.MEM, TraceLevel.WARNING, "cannot reach home node " + home + ": " + e.getMessage());
            throw Errors.access(CmiAccessError.TRANSIENT, segmentId, offset);
        }
    }

    /**
     * Fetches a ticket from the own daemon, unless another thread already replaced {@code stale};
     * each call to the daemon waits at most {@code timeoutNanos} (a stopped daemon fails the
     * access with TRANSIENT in the remote timeout, not in the control path's 60 s).
     */
    private byte[] freshTicket(byte[] stale, long timeoutNanos) {
        ticketLock.lock();
        try {
            byte[] t = ticket;
            if (t != null && t != stale) {
                return t;
            }
            if (ticket == null) {
                // Speak TLS to homes exactly when the own daemon does (its trusted certificates).
                byte[] trust = channel.call(new ControlMessage.TlsTrustRequest(), ControlMessage.BytesValue.class, timeoutNanos)
                    .value();
                if (trust.length > 0) {
                    try {
                        tls = io.softcmi.wire.ClusterTls.forClient(trust);
                    } catch (IOException e) {
                        throw new IllegalStateException(e.getMessage(), e);
                    }
                }
            }
            t = channel.call(new ControlMessage.TicketRequest(), ControlMessage.BytesValue.class, timeoutNanos).value();
            ticket = t;
            return t;
        } finally {
            ticketLock.unlock();
        }
    }

    /**
     * The node declared a home dead: from now on access through its proxies known so far fails
     * with SINVAL, and calls waiting for it end now (with the error their callers map a broken
     * connection to). A proxy imported later (the home came back) opens a new connection.
     *
     * @param home the dead home
     * @param proxies the ids of its proxies this context knows
     */
    void homeDown(NodeAddressImpl home, java.util.Set<Long> proxies) {
        deadProxies.addAll(proxies);
        for (Map.Entry<Object, Link> e : links.entrySet()) {
            Object k = e.getKey();
            if (home.equals(k) || k instanceof ThreadHome th && home.equals(th.home())) {
                RemoteConnection c = e.getValue().connection;
                if (c != null) {
                    c.close();
                }
            }
        }
    }

    /**
     * @param proxyId a proxy's id
     * @return whether the node declared its home dead
     */
    boolean isDown(long proxyId) {
        return !deadProxies.isEmpty() && deadProxies.contains(proxyId);
    }

    void closeAll() {
        for (Link l : links.values()) {
            RemoteConnection c = l.connection;
            if (c != null) {
                c.close();
            }
        }
        links.clear();
    }
}
