package io.softcmi.vmmc;

import java.util.concurrent.CompletableFuture;

/** An outstanding asynchronous import ({@code vmmc_imphandle_t} of {@code vmmc_ImportRecvBufAsync}). */
public final class ImportRequest {
    final Vmmc owner;
    final CompletableFuture<ImportHandle> result = new CompletableFuture<>();
    volatile boolean reported;

    ImportRequest(Vmmc owner) {
        this.owner = owner;
    }

    /** @return whether the import finished (successfully or not) */
    public boolean isDone() {
        return result.isDone();
    }
}
