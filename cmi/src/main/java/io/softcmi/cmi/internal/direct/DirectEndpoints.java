package io.softcmi.cmi.internal.direct;

import io.softcmi.cmi.CmiAccessError;
import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.internal.Errors;
import io.softcmi.cmi.notify.DirectInlet;
import io.softcmi.cmi.notify.DirectRoute;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

/**
 * One context's direct delivery (docs/notifications.md, "Direct delivery"): its
 * {@link InletServer}, started with the first inlet, and its {@link RouteConnection}s, one per
 * serving process, opened with the first route there and again after one failed. Wires the two
 * together: a handler on the inlet thread that waits keeps serving the inlet, and the frames a
 * route sends carry the acknowledgements of the inlet's connection from the same process.
 */
public final class DirectEndpoints {
    private final InletHost host;
    private final Object lock = new Object();
    private volatile InletServer server; // written under lock
    private final Map<String, RouteConnection> routes = new ConcurrentHashMap<>();
    private boolean closed; // guarded by lock

    /** @param host the context served */
    public DirectEndpoints(InletHost host) {
        this.host = host;
    }

    /**
     * Opens an inlet on a writable local attach ({@code Notifications.openInlet}; the caller
     * checked the attach).
     *
     * @param data the attach's memory
     * @param segment the segment, as the context names it (for the notifications)
     * @param attached whether the attach is still attached
     * @return the inlet
     */
    public DirectInlet openInlet(MemorySegment data, CmiSegment segment, BooleanSupplier attached) {
        return server().open(data, segment, attached);
    }

    /**
     * A route to an inlet ({@code Notifications.routeTo}).
     *
     * @param inletAddress the inlet's address
     * @return the route
     */
    public DirectRoute routeTo(byte[] inletAddress) {
        InletAddress a = InletAddress.fromBytes(inletAddress);
        return new Route(this, a, connection(a));
    }

    /** Closes the inlet server and every route connection (the context ends). */
    public void close() {
        synchronized (lock) {
            closed = true;
            if (server != null) {
                server.close();
            }
            routes.values().forEach(RouteConnection::close);
            routes.clear();
        }
    }

    private InletServer server() {
        checkPlainTcp();
        synchronized (lock) {
            checkOpen();
            if (server == null) {
                try {
                    server = InletServer.start(this, host, host.listenHost());
                } catch (IOException e) {
                    host.warn("no inlet port on " + host.listenHost() + ": " + e);
                    throw Errors.access(CmiAccessError.TRANSIENT, 0, 0);
                }
            }
            return server;
        }
    }

    /** @return the connection to the process serving {@code inlet}, opened (again) if needed */
    RouteConnection connection(InletAddress inlet) {
        checkPlainTcp();
        synchronized (lock) {
            checkOpen();
            RouteConnection c = routes.get(inlet.endpoint());
            if (c == null || c.broken()) {
                try {
                    c = RouteConnection.open(inlet, host.nodeAddress(), host.remoteTimeoutNanos(), this::beforeWait,
                        this::inletPeer, this::inletEndpoint);
                } catch (IOException e) {
                    host.warn("no route to inlet at " + inlet.endpoint() + ": " + e);
                    throw Errors.access(CmiAccessError.TRANSIENT, 0, 0);
                }
                routes.put(inlet.endpoint(), c);
            }
            return c;
        }
    }

    /** @return the deadline of a wait starting now: the context's remote timeout from now */
    long deadline() {
        return System.nanoTime() + host.remoteTimeoutNanos();
    }

    /** A thread is about to wait for another process's inlet (see {@link InletServer#serveWhileWaiting}). */
    private boolean beforeWait() {
        InletServer s = server;
        return s != null && s.serveWhileWaiting();
    }

    /** @return the inlet connection from the process whose inlet is at {@code endpoint}, or null */
    private InletConnection inletPeer(String endpoint) {
        InletServer s = server;
        return s == null ? null : s.peer(endpoint);
    }

    /** @return this context's inlet endpoint, {@code ""} while it serves none */
    private String inletEndpoint() {
        InletServer s = server;
        return s == null ? "" : s.endpoint();
    }

    /** Frames of the route to {@code endpoint} were acknowledged by a frame from there ({@link InletFrames}). */
    void acknowledgedByPeer(String endpoint, long connection, long seq, long refusals) {
        RouteConnection c = routes.get(endpoint);
        if (c != null) {
            c.acknowledgedByPeer(connection, seq, refusals);
        }
    }

    private void checkPlainTcp() {
        if (!host.plainTcp()) {
            throw Errors.fail(CmiError.NOTSUPP, "direct delivery is plain TCP and this node speaks TLS to other nodes");
        }
    }

    private void checkOpen() {
        if (closed) {
            throw Errors.fail(CmiError.INIT, "context is finalized");
        }
    }
}
