package io.softcmi.node;

/**
 * The node's CMI memory ({@code max_mem_cfg}) and who holds it: segments allocated outside any
 * reservation, reservations (each holding the larger of what it reserves and what its segments
 * use), and the caches of remote segments that the node's contexts hold (as each last reported
 * them, docs/cache.md "Counters"). {@code max_mem_avail} is what is left, never below zero: a
 * cache grows in its own process, so the node cannot refuse it, but while caches hold the
 * memory, allocations and reservations that need it fail with {@code NOMEM}. Guarded by the
 * engine's lock.
 */
final class MemoryAccount {
    private final long configured;
    private long unreserved;
    private long reservationsFootprint;
    private long caches;

    MemoryAccount(long configured) {
        this.configured = configured;
    }

    long configured() {
        return configured;
    }

    /** @return {@code max_mem_avail}: what neither segments, reservations nor caches hold (at least 0) */
    long available() {
        return Math.max(0, configured - unreserved - reservationsFootprint - caches);
    }

    /** @return the bytes the node's contexts' caches hold, as last reported */
    long caches() {
        return caches;
    }

    /**
     * A context's cache now holds {@code after} bytes where it held {@code before} (0 for a new
     * context, {@code after} 0 for one that ended).
     */
    void cacheHeld(long before, long after) {
        caches += after - before;
    }

    /**
     * Charges a segment allocation, to a reservation when the context has a live one; beyond the
     * reservation it needs free memory like any other allocation.
     *
     * @throws NodeException NOMEM when the memory is not there
     */
    void charge(MemoryReservation r, long bytes) {
        // A deleted reservation still accounts for its segments (its footprint is what they use),
        // so growth of those segments is charged to it and released from it alike.
        if (r == null) {
            if (bytes > available()) {
                throw NodeException.nomem("not enough CMI memory: " + bytes + " bytes wanted, " + available() + " available");
            }
            unreserved += bytes;
            return;
        }
        long before = r.footprint();
        r.allocated += bytes;
        long growth = r.footprint() - before;
        if (growth > available()) {
            r.allocated -= bytes;
            throw NodeException.nomem("not enough CMI memory beyond reservation " + r.key + ": " + growth
                + " bytes wanted, " + available() + " available");
        }
        reservationsFootprint += growth;
    }

    /** Gives back what {@link #charge} took, to the same reservation. */
    void release(MemoryReservation r, long bytes) {
        if (r == null) {
            unreserved -= bytes;
            return;
        }
        long before = r.footprint();
        r.allocated -= bytes;
        reservationsFootprint += r.footprint() - before;
    }

    /**
     * Changes what a reservation reserves.
     *
     * @throws NodeException INVAL below what is allocated, NOMEM beyond what is available
     */
    void resize(MemoryReservation r, long reserved) {
        if (reserved < r.allocated) {
            throw NodeException.inval("reservation " + r.key + " has " + r.allocated + " bytes allocated; cannot shrink to "
                + reserved);
        }
        long before = r.footprint();
        long old = r.reserved;
        r.reserved = reserved;
        long growth = r.footprint() - before;
        if (growth > available()) {
            r.reserved = old;
            throw NodeException.nomem("cannot reserve " + reserved + " bytes: " + available() + " available");
        }
        reservationsFootprint += growth;
    }

    /** Adds a new reservation's footprint. */
    void add(MemoryReservation r) {
        if (r.footprint() > available()) {
            throw NodeException.nomem("cannot reserve " + r.reserved + " bytes: " + available() + " available");
        }
        reservationsFootprint += r.footprint();
    }

    /** Marks a reservation deleted: only what its segments use stays held. */
    void delete(MemoryReservation r) {
        long before = r.footprint();
        r.deleted = true;
        reservationsFootprint += r.footprint() - before;
    }
}
