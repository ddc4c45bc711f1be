package io.softcmi.cmi;

import java.util.Set;

/**
 * The answer of {@code seg_ctl(CMI_SEG_STATUS)} ({@link CmiContext#segStatus(CmiSegment)}): the
 * spec's segment operand structure ({@code cmi_ds}) filled in for the segment.
 *
 * @param segId the segment id ({@link CmiSegment#id()})
 * @param segSz the size of the segment in bytes (the maximum size of an extensible segment)
 * @param segBrk the break point: the instantiated size; equal to {@code segSz} for a segment that
 *               is not extensible
 * @param segFlags the creation flags; copied, never null
 * @param state the lifecycle state
 * @param attachCount the number of attachments ({@code seg_at}) of the segment on its node
 * @param creatorPid the process id of the process that created (or imported) the segment
 * @param exported whether the segment has been exported ({@code seg_exp})
 * @param imported whether this is an imported segment ({@code seg_imp})
 * @param home the node address of the segment's home node
 */
public record SegStatus(long segId, long segSz, long segBrk, Set<SegFlag> segFlags, SegState state,
                        int attachCount, long creatorPid, boolean exported, boolean imported,
                        NodeAddress home) {
    /**
     * Copies the flags.
     *
     * @throws NullPointerException if {@code segFlags} is null or contains null
     */
    public SegStatus {
        segFlags = Set.copyOf(segFlags);
    }
}
