package io.softcmi.cmi.internal;

import io.softcmi.cmi.notify.DirectRoute;
import io.softcmi.cmi.notify.PendingPut;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/** A {@link DirectRoute}: one inlet's address over the context's shared {@link RouteConnection} to its process. */
final class Route implements DirectRoute {
    private final ContextImpl context;
    private final InletAddress inlet;
    private final RouteConnection connection;
    private volatile boolean closed;

    Route(ContextImpl context, InletAddress inlet, RouteConnection connection) {
        this.context = context;
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
        long seq = connection.send(inlet, op, offset, src, notifyOffset, value, context.remoteDeadline());
        return new PendingPut() {
            @Override
            public boolean done() {
                return connection.done(seq);
            }

            @Override
            public void await() {
                connection.await(seq, inlet.inletId(), offset, context.remoteDeadline());
            }

            @Override
            public long creatorBacklog() {
                return 0;
            }
        };
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
