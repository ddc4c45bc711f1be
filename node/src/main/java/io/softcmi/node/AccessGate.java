package io.softcmi.node;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * The remote accesses admitted under one access token ({@link HomeToken}), so that
 * {@code tok_del} returns only once none of them is still landing (libcmi(3) {@code tok_del}:
 * "All subsequent accesses to the segment with a revoked segment should result in access
 * error"; cmi(7) "CMI Access Control").
 *
 * <p>A data connection enters the gate when a request passes its token check ({@link #enter},
 * through {@link HomeAccess#admit}) and leaves it when the request is done: its bytes written
 * into the mapping or copied out of it, its log entry made, its notice queued to the segment's
 * creator ({@link Admission}). {@code tok_del} closes the gate, then waits for the count to
 * drain ({@link #drain}). Entering adds to the count first and then reads whether the gate is
 * closed; closing sets the flag first and then reads the count. Both are sequentially
 * consistent (a volatile field and {@code getAndAdd}), so either the entrant sees the gate
 * closed and is refused, or the closer sees it counted and waits for it (Dekker's handshake).
 * The hot path costs two atomic additions on the token's own count and one volatile read per
 * request; no lock.
 *
 * <p>Most admitted requests are done within one pass of their I/O loop, in bounded time. Two
 * kinds wait on their client while admitted: a streamed store whose payload is still arriving,
 * and a large read whose payload is still being written from the mapping. Their connections
 * register as {@link Holder}s; a revocation that waited its bound cuts them (the connection's
 * loop closes it, which ends the request and leaves the gate), so a client that stops sending
 * or reading cannot hold {@code tok_del} for ever.
 */
final class AccessGate {
    /** A connection whose admitted request waits on its client. */
    interface Holder {
        /** Closes the connection soon, on its own loop (any thread; never blocks). */
        void cut();
    }

    private static final VarHandle IN_FLIGHT;
    static {
        try {
            IN_FLIGHT = MethodHandles.lookup().findVarHandle(AccessGate.class, "inFlight", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    /** Spins before the drain starts parking. */
    private static final int SPINS = 200;
    /** Longest single park of a drain. */
    private static final long MAX_PARK_NANOS = 1_000_000;

    /** Requests admitted and not yet done (through {@link #IN_FLIGHT}). */
    @SuppressWarnings("unused")
    private volatile int inFlight;
    private volatile boolean closed;
    /** Connections whose admitted request waits on their client. */
    private final Set<Holder> holders = ConcurrentHashMap.newKeySet();

    /**
     * Admits one request, unless the gate is closed. A true result must be matched by one
     * {@link #leave()}.
     *
     * @return false if the token was revoked meanwhile: refuse the request with {@code TOKEN}
     */
    boolean enter() {
        IN_FLIGHT.getAndAdd(this, 1);
        if (closed) {
            IN_FLIGHT.getAndAdd(this, -1);
            return false;
        }
        return true;
    }

    /** One admitted request is done. */
    void leave() {
        IN_FLIGHT.getAndAdd(this, -1);
    }

    /** @param h a connection whose admitted request now waits on its client */
    void hold(Holder h) {
        holders.add(h);
    }

    /** @param h a holder whose request ended */
    void release(Holder h) {
        holders.remove(h);
    }

    /** Refuses every later request (the token is revoked). */
    void close() {
        closed = true;
    }

    /** @return whether the token was revoked */
    boolean closed() {
        return closed;
    }

    /** @return requests admitted and not yet done */
    int inFlight() {
        return (int) IN_FLIGHT.getVolatile(this);
    }

    /**
     * After {@link #close()}: waits until every admitted request is done. Waits up to
     * {@code boundNanos}; then cuts the connections still waiting on their clients and waits up
     * to {@code boundNanos} more for them (and for any other request) to end.
     *
     * @param boundNanos how long to wait before cutting, and how long after
     * @return connections cut (0 if the requests ended by themselves), or -1 if requests were
     *         still in flight at the end (a loop that does not turn)
     */
    int drain(long boundNanos) {
        if (!closed) {
            throw new IllegalStateException("drain before close");
        }
        if (await(System.nanoTime() + boundNanos, false)) {
            return 0;
        }
        int cut = holders.size();
        return await(System.nanoTime() + boundNanos, true) ? cut : -1;
    }

    /** @return true once nothing is in flight, false at the deadline */
    private boolean await(long deadline, boolean cutting) {
        long park = 1_000;
        for (int spin = 0; ; spin++) {
            if (cutting) {
                for (Holder h : holders) {
                    h.cut(); // again each look: a request may register as holder just after a look
                }
            }
            if (inFlight() == 0) {
                return true;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            if (spin < SPINS) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(Math.min(park, left));
                park = Math.min(park * 2, MAX_PARK_NANOS);
            }
        }
    }
}
