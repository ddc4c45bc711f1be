package io.softcmi.smi;

/** The physical distribution policies of a shared region ({@code SMI_SHM_*}, manual §7, §17.2). */
public enum RegionType {
    /** {@code SMI_SHM_UNDIVIDED}: one segment on the owner's node; collective. */
    UNDIVIDED,
    /** {@code SMI_SHM_BLOCKED}: one page-aligned block per process, block i on process i's node; collective. */
    BLOCKED,
    /** {@code SMI_SHM_CYCLIC}: {@code nbrSgmts} blocks dealt round-robin to the processes; collective. */
    CYCLIC,
    /** {@code SMI_SHM_CUSTOMIZED}: user-given segment sizes and owners; collective. */
    CUSTOMIZED,
    /** {@code SMI_SHM_SMP}: one region per node, shared by that node's processes; collective. */
    SMP,
    /** {@code SMI_SHM_PT2PT}: a region of the owner shared with one partner; only those two call. */
    PT2PT,
    /** {@code SMI_SHM_FRAGMENTED}: every process exports size/N bytes, all import all; collective. */
    FRAGMENTED,
    /** {@code SMI_SHM_LOCAL}: created and exported by this process only; non-collective. */
    LOCAL,
    /** {@code SMI_SHM_REMOTE}: imports another process's {@code LOCAL} region; non-collective. */
    REMOTE,
    /** {@code SMI_SHM_RDMA}: like {@code REMOTE}, reached by {@code Smi.put}/{@code Smi.get}; non-collective. */
    RDMA
}
