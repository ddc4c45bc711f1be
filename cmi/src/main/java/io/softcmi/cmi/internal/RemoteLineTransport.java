package io.softcmi.cmi.internal;

import io.softcmi.cmi.CmiAccessError;
import io.softcmi.cmi.internal.cache.LineTransport;
import io.softcmi.wire.DataProtocol;
import java.lang.foreign.MemorySegment;

/**
 * A {@link LineTransport} over the context's data connection to the segment's home: FILL, DIFF,
 * ACQUIRE and FORGET requests with the attach's current token and the attach's own cache id. Requests of
 * one context to one home share one pipelined connection, so they reach the home in the order
 * they were started (a fill sent after a diff sees it), a queued ACQUIRE ({@link #acquireLater})
 * included.
 */
final class RemoteLineTransport implements LineTransport {
    private final RemoteMapping mapping;
    private final long cacheId;

    RemoteLineTransport(RemoteMapping mapping, long cacheId) {
        this.mapping = mapping;
        this.cacheId = cacheId;
    }

    /** A request on a connection. */
    private record OnWire(RemoteConnection connection, RemoteCall call, long deadline) implements Pending {
        @Override
        public int await() {
            connection.await(call, deadline);
            return call.status;
        }

        @Override public long value() { return call.value; }
        @Override public int received() { return call.received; }
        @Override public boolean done() { return call.done; }
    }

    /** A request refused before it was sent. */
    private record Refused(int status) implements Pending {
        @Override public int await() { return status; }
        @Override public long value() { return 0; }
        @Override public int received() { return 0; }
        @Override public boolean done() { return true; }
    }

    private Pending start(byte op, long offset, long a, MemorySegment payload, MemorySegment dst, int dstLength,
            boolean upTo, boolean later) {
        TokenImpl t = mapping.token();
        if (t == null) {
            return new Refused(AccessStatus.toWire(CmiAccessError.TOKEN));
        }
        long deadline = mapping.context.remoteDeadline();
        RemoteConnection c;
        try {
            c = mapping.context.connection(mapping.home, mapping.segment.id(), offset);
        } catch (io.softcmi.cmi.CmiAccessException unreachable) {
            // The cache turns a status into STORE (write-back) or the access error (fill).
            return new Refused(AccessStatus.toWire(unreachable.accessError()));
        }
        RemoteCall call = later
            ? c.queue(op, mapping.homeSegmentId, t, offset, a, cacheId, dst, dstLength, upTo, deadline)
            : c.start(op, mapping.homeSegmentId, t, offset, a, cacheId, payload, dst, dstLength, upTo, deadline);
        return new OnWire(c, call, deadline);
    }

    @Override
    public Pending fill(long offset, byte[] dst, int dstOffset, int length) {
        return start(DataProtocol.OP_FILL, offset, length, null, MemorySegment.ofArray(dst).asSlice(dstOffset, length),
            length, false, false);
    }

    @Override
    public Pending diff(MemorySegment runs) {
        return start(DataProtocol.OP_DIFF, 0, 0, runs, null, 0, false, false);
    }

    /** Sent on the context's connection to the home if one is open; nobody waits for its reply. */
    @Override
    public void forget() {
        TokenImpl t = mapping.token();
        RemoteConnection c = t == null ? null : mapping.context.openConnection(mapping.home);
        if (c != null) {
            c.start(DataProtocol.OP_FORGET, mapping.homeSegmentId, t, 0, 0, cacheId, null, null, 0, false,
                mapping.context.remoteDeadline());
        }
    }

    /** @return the home: a context's requests to one home share one pipelined connection */
    @Override
    public Object route() {
        return mapping.home;
    }

    @Override
    public Pending acquire(long sinceEpoch, byte[] dst) {
        return start(DataProtocol.OP_ACQUIRE, 0, sinceEpoch, null, MemorySegment.ofArray(dst), dst.length, true, false);
    }

    /** Queued on the context's connection to the home ({@link RemoteConnection#queue}). */
    @Override
    public Pending acquireLater(long sinceEpoch, byte[] dst) {
        return start(DataProtocol.OP_ACQUIRE, 0, sinceEpoch, null, MemorySegment.ofArray(dst), dst.length, true, true);
    }
}
