package io.softcmi.smi;

/** Loop-scheduling partition policies ({@code SMI_PART_*}, manual §17.12). */
public enum LoopMode {
    /** {@code SMI_PART_BLOCKED}. */
    BLOCKED,
    /** {@code SMI_PART_CYCLIC}. */
    CYCLIC,
    /** {@code SMI_PART_ADAPTED_BLOCKED}. */
    ADAPTED_BLOCKED,
    /** {@code SMI_PART_TIMED_BLOCKED}. */
    TIMED_BLOCKED
}
