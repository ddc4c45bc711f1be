package io.softcmi.smi;

/** What {@link Smi#redirectIo} does with a stream ({@code SMI_IO_*}, manual §5). */
public enum IoMode {
    /** {@code SMI_IO_ASIS}: leave the stream as it is. */
    ASIS,
    /** {@code SMI_IO_FILE}: redirect the stream to a file (output files get the suffix {@code .RANK}). */
    FILE
}
