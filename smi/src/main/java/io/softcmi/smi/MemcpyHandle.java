package io.softcmi.smi;

/** An asynchronous copy started by {@link Smi#imemcpy} ({@code smi_memcpy_handle}). */
public interface MemcpyHandle {
    /** @return the bytes the copy moves */
    long size();
}
