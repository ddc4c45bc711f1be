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
 * {@link InletServer}, started with the first inlet or route, which reads every connection of the
 * context, and its connections to other processes, one per process ({@link RouteConnection}),
 * used both ways: a connection the other process opened carries this context's frames to it too.
 * When two processes opened one to each other at the same time, both move to the one opened by the
 * process whose inlet endpoint sorts first, once nothing sent on the other is unacknowledged
 * ({@link Route}).
 */
public final class DirectEndpoints {
    private final InletHost host;
    private final Object lock = new Object();
    private volatile InletServer server; // written under lock
    private final Map<String, RouteConnection> routes = new ConcurrentHashMap<>();
    private volatile boolean closed; // written under lock

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

    /**
     * The connection to the process serving {@code inlet}, opened (again) if needed. Connecting
     * holds no lock: a process that does not answer delays only the routes to it, and the inlet
     * thread never waits for it ({@link #helloFrom}).
     */
    RouteConnection connection(InletAddress inlet) {
        InletServer s = server();
        String ep = inlet.endpoint();
        RouteConnection c = routes.get(ep);
        if (c != null && !c.broken()) {
            return c;
        }
        RouteConnection fresh;
        try {
            fresh = RouteConnection.connect(inlet, s, s.hello(), host.remoteTimeoutNanos());
        } catch (IOException e) {
            host.warn("no route to inlet at " + ep + ": " + e);
            throw Errors.access(CmiAccessError.TRANSIENT, 0, 0);
        }
        RouteConnection chosen = routes.compute(ep, (k, current) -> better(fresh, current, ep, s));
        if (chosen != fresh) {
            fresh.close(); // another thread connected, or the other process did, meanwhile
        }
        if (closed) {
            chosen.close();
            checkOpen();
        }
        return chosen;
    }

    /** @return the inlet server if it was started, else null (for this package's tests and counters) */
    InletServer runningServer() {
        return server;
    }

    /**
     * @param endpoint another process's inlet endpoint
     * @return the connection this context's routes there use now, or null
     */
    RouteConnection preferred(String endpoint) {
        return routes.get(endpoint);
    }

    /**
     * The process at the other end of a connection it opened said its inlet is at
     * {@code endpoint} (server thread): that connection serves this context's routes there too,
     * if it is the better one ({@link #better}). Never waits.
     */
    void helloFrom(String endpoint, RouteConnection c) {
        if (c.outgoing) {
            return;
        }
        c.endpoint(endpoint);
        InletServer s = server;
        if (!closed && s != null) {
            routes.compute(endpoint, (k, current) -> better(c, current, endpoint, s));
        }
    }

    /**
     * Of two connections to one process, the one both ends use: a live one over a broken one,
     * else the one opened by the process whose inlet endpoint sorts first, else the one in use.
     */
    private static RouteConnection better(RouteConnection candidate, RouteConnection current, String peer, InletServer own) {
        if (current == null || current.broken()) {
            return candidate;
        }
        return openedByFirst(candidate, peer, own) && !openedByFirst(current, peer, own) ? candidate : current;
    }

    private static boolean openedByFirst(RouteConnection c, String peer, InletServer own) {
        int order = own.endpoint().compareTo(peer);
        return c.outgoing ? order < 0 : order > 0;
    }

    /** A connection failed and was dropped (server thread): routes there connect again. */
    void dropped(RouteConnection c) {
        String ep = c.endpoint();
        if (ep != null) {
            routes.remove(ep, c);
        }
    }

    /** @return the deadline of a wait starting now: the context's remote timeout from now */
    long deadline() {
        return System.nanoTime() + host.remoteTimeoutNanos();
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
