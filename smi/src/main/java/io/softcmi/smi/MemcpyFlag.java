package io.softcmi.smi;

/** Attributes of memory copy operations ({@code SMI_MEMCPY_*}, manual §8.2, §17.6). */
public enum MemcpyFlag {
    /** {@code SMI_MEMCPY_NOBARRIER}: no store barrier ({@code wmb}) after the copy. */
    NOBARRIER,
    /** {@code SMI_MEMCPY_NOVERIFY}: do not verify the copy (CMI reports failures anyway). */
    NOVERIFY,
    /** {@code SMI_MEMCPY_FAST}: {@code NOBARRIER} and {@code NOVERIFY}. */
    FAST,
    /** {@code SMI_MEMCPY_ENQUEUE}: an {@code imemcpy} is only queued; it starts with the next {@code imemcpy} posted without it, or at a {@code memwait} on it (a synchronous {@code memcpy} refuses it: {@code PARAM}). */
    ENQUEUE,
    /** {@code SMI_MEMCPY_FORCE_DMA}: asynchronous even for small sizes (always so here). */
    FORCE_DMA,
    /** {@code SMI_MEMCPY_ALIGN}: accepted; sizes are not enlarged (no stream buffers on TCP). */
    ALIGN
}
