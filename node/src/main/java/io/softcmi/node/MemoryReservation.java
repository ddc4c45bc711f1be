package io.softcmi.node;

/**
 * A memory reservation ({@code CMI_CTL_MEM_RESERVE}): memory set aside for the segments of the
 * contexts associated with it. It outlives the context that made it until deleted, and once
 * deleted lives on only while segments allocated from it do. Usable only by its owner's user.
 */
final class MemoryReservation {
    final long key;
    final String owner;
    long reserved;
    long allocated;
    boolean deleted;

    MemoryReservation(long key, String owner, long reserved) {
        this.key = key;
        this.owner = owner;
        this.reserved = reserved;
    }

    /** @return memory this reservation holds back from others: what it reserves, or what its segments use */
    long footprint() {
        return deleted ? allocated : Math.max(reserved, allocated);
    }
}
