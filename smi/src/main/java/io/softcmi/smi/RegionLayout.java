package io.softcmi.smi;

import java.util.List;

/**
 * The layout of a region ({@code smi_rlayout_t}, manual §17.5), returned by
 * {@link SmiRegion#layout()}. Addresses become offsets from the region's start.
 *
 * @param size the total size in bytes as created
 * @param segments its segments in address order
 */
public record RegionLayout(long size, List<Segment> segments) {
    /**
     * One segment of a region.
     *
     * @param offset where it starts in the region ({@code sgmt_adr} relative to {@code adr})
     * @param size its size in bytes ({@code sgmt_size})
     * @param node the rank of the node it is located on ({@code sgmt_node})
     * @param ownerRank the rank of the process that exported it
     */
    public record Segment(long offset, long size, int node, int ownerRank) {
    }

    /** Copies the list. */
    public RegionLayout {
        segments = List.copyOf(segments);
    }

    /** @return {@code nbr_sgmts} */
    public int nbrSgmts() {
        return segments.size();
    }
}
