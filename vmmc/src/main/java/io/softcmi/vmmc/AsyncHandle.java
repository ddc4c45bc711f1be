package io.softcmi.vmmc;

/** An outstanding asynchronous send or get ({@code vmmc_async_handle_t}); see {@link Vmmc#asyncStatus}. */
public final class AsyncHandle {
    final Vmmc owner;
    /** IN_PROGRESS's code until done, then SUCCESS's or an error code. */
    volatile int status = VmmcResult.IN_PROGRESS.code();

    AsyncHandle(Vmmc owner) {
        this.owner = owner;
    }

    @Override
    public String toString() {
        return "AsyncHandle[" + VmmcResult.of(status).specName() + "]";
    }
}
