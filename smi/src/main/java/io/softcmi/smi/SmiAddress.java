package io.softcmi.smi;

/**
 * A location in a shared region: the Java form of an SMI pointer ({@code char*} into a region).
 *
 * @param region the region
 * @param offset the byte offset from the region's start (for a process that imports a window of
 *               an {@code UNDIVIDED} region, from the window's start)
 */
public record SmiAddress(SmiRegion region, long offset) {
    /**
     * This address moved by {@code delta} bytes (pointer arithmetic).
     *
     * @param delta bytes to add
     * @return the new address in the same region
     */
    public SmiAddress plus(long delta) {
        return new SmiAddress(region, offset + delta);
    }
}
