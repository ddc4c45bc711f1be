package io.softcmi.smi;

/** Consistency operations of {@link Smi#checkTransfer} ({@code SMI_CHECK_*}, manual §17.7). */
public enum CheckFlag {
    /** {@code SMI_CHECK_NOFLUSH}: no read-buffer flush ({@code rmb}). */
    NOFLUSH,
    /** {@code SMI_CHECK_NOBARRIER}: no store barrier ({@code wmb}). */
    NOBARRIER,
    /** {@code SMI_CHECK_PROBE}: return the current state without waiting. */
    PROBE
}
