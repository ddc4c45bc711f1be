package io.softcmi.samples;

import io.softcmi.cmi.CmiContext;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Reads a Jacobi worker's halo rows in a second thread of its context while the first computes
 * the rows that do not need them, so that a read miss on a neighbour's cached import (a round
 * trip to the neighbour's node, and on a machine with fewer cores than processes a wait for that
 * daemon to be scheduled) overlaps computation. The thread joins the context with
 * {@code ini_th} and {@code cmi_enb}; the context's cache is shared by its threads, so the
 * barrier's acquire in the computing thread holds for the reads here too (the submission of the
 * read orders it after the barrier).
 */
final class HaloPrefetch implements AutoCloseable {
    private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "jacobi-halo");
        t.setDaemon(true);
        return t;
    });
    private final CmiContext context;
    private final long timeoutMillis;
    private Future<?> pending;

    /**
     * @param context the worker's context (the helper thread joins it)
     * @param timeoutMillis the longest a read may take
     */
    HaloPrefetch(CmiContext context, long timeoutMillis) {
        this.context = context;
        this.timeoutMillis = timeoutMillis;
        pending = thread.submit(() -> {
            context.iniTh();
            context.enable(true);
        });
        await();
    }

    /** Starts {@code reads} in the helper thread (the previous batch must have been awaited). */
    void start(Runnable reads) {
        pending = thread.submit(reads);
    }

    /** Waits for the batch started last; a failed read is rethrown here. */
    void await() {
        try {
            pending.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("a halo read took more than " + timeoutMillis + " ms", e);
        }
    }

    /** Leaves the context ({@code fini}) from the helper thread and stops it. */
    @Override
    public void close() {
        try {
            start(context::fini);
            await();
        } finally {
            thread.shutdownNow();
        }
    }
}
