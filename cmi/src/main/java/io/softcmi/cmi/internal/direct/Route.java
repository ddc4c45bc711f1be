package io.softcmi.cmi.internal.direct;

import io.softcmi.cmi.internal.Errors;
import io.softcmi.cmi.notify.DirectRoute;
import io.softcmi.cmi.notify.PendingPut;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * A {@link DirectRoute}: one inlet's address over the context's shared {@link RouteConnection} to
 * its process; after that connection failed, the next send connects again.
 */
final class Route implements DirectRoute {
    private final DirectEndpoints endpoints;
    private final InletAddress inlet;
    /** The context's connection to the inlet's process; replaced by a new one once it has failed. */
    private volatile RouteConnection connection;
    private volatile boolean closed;

    Route(DirectEndpoints endpoints, InletAddress inlet, RouteConnection connection) {
        this.endpoints = endpoints;
        this.inlet = inlet;
        this.connection = connection;
    }

    @Override
    public PendingPut putAndNotify(long offset, MemorySegment src, long notifyOffset, long value) {
        Objects.checkFromIndexSize(notifyOffset, 8, inlet.size());
        return send(InletFrames.PUT_NOTIFY, offset, src, notifyOffset, value);
    }

    @Override
    public PendingPut put(long offset, MemorySegment src) {
        return send(InletFrames.PUT, offset, src, 0, 0);
    }

    private PendingPut send(int op, long offset, MemorySegment src, long notifyOffset, long value) {
        Errors.checkNotNull(src, "src");
        Objects.checkFromIndexSize(offset, src.byteSize(), inlet.size());
        if (closed) {
            throw new IllegalStateException("route to " + inlet.endpoint() + " is closed");
        }
        RouteConnection c;
        long seq;
        do {
            c = connection;
            if (c.movedTo() != null) {
                connection = c = c.movedTo();
            }
            if (c.broken()) {
                // Frames of the failed connection were reported TRANSIENT to their callers; later ones
                // go on a new connection (a process that was stopped and resumed serves it again).
                connection = c = endpoints.connection(inlet);
            } else {
                RouteConnection preferred = endpoints.preferred(inlet.endpoint());
                if (preferred != null && preferred != c && !preferred.broken() && c.moveTo(preferred)) {
                    // Both processes opened a connection to each other: move to the one both use,
                    // once every frame sent on this one is stored (their order holds).
                    connection = c = preferred;
                }
            }
            seq = c.send(inlet, op, offset, src, notifyOffset, value, endpoints.deadline());
        } while (seq == 0); // retired meanwhile by another route's move: send on the next one
        return new RoutePut(c, seq, endpoints, inlet.inletId(), offset);
    }

    /** @return the connection this route sends on now */
    RouteConnection connection() {
        return connection;
    }

    @Override
    public long size() {
        return inlet.size();
    }

    @Override
    public void close() {
        closed = true;
    }

    @Override
    public String toString() {
        return "Route[inlet " + inlet.inletId() + " at " + inlet.endpoint() + (closed ? ", closed" : "") + "]";
    }
}
