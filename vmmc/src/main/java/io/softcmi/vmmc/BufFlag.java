package io.softcmi.vmmc;

/** The export flags of {@code vmmc_ExportRecvBuf} ({@code BUF_*}). */
public enum BufFlag {
    /** {@code BUF_WRITE_ONLY}: importers may only send data into the buffer. */
    WRITE_ONLY,
    /** {@code BUF_READ_ONLY}: importers may only fetch data from the buffer. */
    READ_ONLY,
    /** {@code BUF_READWRITE}: importers may send and fetch. */
    READWRITE,
    /** {@code BUF_REDIRECTABLE}: the receiver may redirect arriving data ({@code vmmc_PostRedir}). */
    REDIRECTABLE,
    /** {@code BUF_GLOBAL_SPACE}: accepted; softcmi has a single buffer space (no effect). */
    GLOBAL_SPACE
}
