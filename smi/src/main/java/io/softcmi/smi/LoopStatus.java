package io.softcmi.smi;

/** Loop-scheduling status ({@code SMI_LOOP_*}, manual §17.13). */
public enum LoopStatus {
    /** {@code SMI_LOOP_READY}: no iterations left. */
    READY,
    /** {@code SMI_LOOP_LOCAL}: iterations from this process's own share. */
    LOCAL,
    /** {@code SMI_LOOP_REMOTE}: iterations taken from another process (load balancing). */
    REMOTE
}
