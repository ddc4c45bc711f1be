package io.softcmi.cmi.internal.cache;

import java.lang.foreign.MemorySegment;

/**
 * How a {@link SegmentCache} talks to the home of its segment: the three coherent-cache requests
 * of the data protocol ({@code DataProtocol.OP_FILL}, {@code OP_DIFF}, {@code OP_ACQUIRE}).
 * Each call sends its request and returns at once, so a cache keeps several in flight; requests
 * of one transport reach the home in the order they were started. A fake implementation tests
 * the cache without a network.
 */
public interface LineTransport {
    /** A request in flight. */
    interface Pending {
        /**
         * Waits for the reply.
         *
         * @return 0, an access error's wire code, or a negative value for a network failure or timeout
         */
        int await();

        /** @return the reply's value: ACQUIRE the home's epoch; FILL {@code epoch << 1 | (token grants WRITE ? 1 : 0)} */
        long value();

        /** @return payload bytes received (ACQUIRE) */
        int received();

        /** @return whether the reply has come (or the request failed) */
        boolean done();
    }

    /**
     * Reads {@code length} bytes at {@code offset} into {@code dst} and registers this cache as a reader.
     *
     * @return the request
     */
    Pending fill(long offset, byte[] dst, int dstOffset, int length);

    /**
     * Applies the runs {@code long offset | int length | bytes} (little-endian headers) in
     * {@code runs} at the home; acknowledged after they are applied. The caller reuses
     * {@code runs} once this returns: the request is sent (or copied) by then. The cache passes
     * native memory, which a socket writes without another copy.
     *
     * @return the request
     */
    Pending diff(MemorySegment runs);

    /**
     * Asks for the ranges others wrote since {@code sinceEpoch}: pairs {@code long start | long end}
     * (little-endian) into {@code dst}.
     *
     * @return the request
     */
    Pending acquire(long sinceEpoch, byte[] dst);

    /**
     * {@link #acquire}, queued instead of sent ({@code rmb}): the request takes its place in the
     * route's order now, but is written in front of the next request sent on the route (in the
     * same write), or alone when its reply is first awaited. The default sends it now.
     *
     * @return the request
     */
    default Pending acquireLater(long sinceEpoch, byte[] dst) {
        return acquire(sinceEpoch, dst);
    }

    /**
     * Tells the home that this cache detached with every store written back and acknowledged
     * ({@code DataProtocol.OP_FORGET}), so that it forgets the cache's record. Sent only where a
     * connection is open, and not waited for: the home otherwise forgets it when the context
     * ends. The default sends nothing.
     */
    default void forget() {
    }

    /**
     * Which ordered channel the requests travel on: requests of transports with equal non-null
     * routes, and any other request sent on that route, reach the home in the order they were
     * started. Null when unknown.
     *
     * @return the route, or null
     */
    default Object route() {
        return null;
    }
}
