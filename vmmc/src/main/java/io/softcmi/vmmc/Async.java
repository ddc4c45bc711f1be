package io.softcmi.vmmc;

import java.lang.foreign.Arena;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The threads behind asynchronous calls: one ordered transfer thread (so asynchronous sends keep
 * their order, and each put and its notification come from one thread) and one import thread,
 * both associated with the CMI context ({@code ini_th}, {@code cmi_enb}). Synchronous transfers
 * first wait for the queued ones ({@link #drain}), so all transfers of a process stay in order.
 */
final class Async {
    final Arena arena = Arena.ofShared();
    private final Vmmc vmmc;
    private final ExecutorService transfers;
    private final ExecutorService imports;
    private final AtomicLong outstanding = new AtomicLong();

    Async(Vmmc vmmc) {
        this.vmmc = vmmc;
        this.transfers = Executors.newSingleThreadExecutor(r -> thread(r, "vmmc-transfer"));
        this.imports = Executors.newSingleThreadExecutor(r -> thread(r, "vmmc-import"));
    }

    private Thread thread(Runnable r, String name) {
        Thread t = new Thread(() -> {
            vmmc.ctx.iniTh();
            vmmc.ctx.enable(true);
            r.run();
        }, name);
        t.setDaemon(true);
        return t;
    }

    AsyncHandle submit(Runnable work) {
        AsyncHandle h = new AsyncHandle(vmmc);
        outstanding.incrementAndGet();
        try {
            transfers.execute(() -> run(h, work));
        } catch (RejectedExecutionException closed) {
            outstanding.decrementAndGet(); // else every later drain() would wait for it forever
            throw new VmmcException(VmmcResult.BAD_IBUF_STATE, "the endpoint is closed");
        }
        return h;
    }

    /** Runs one queued transfer on the transfer thread and completes its handle. */
    private void run(AsyncHandle h, Runnable work) {
        try {
            work.run();
            h.status = VmmcResult.SUCCESS.code();
        } catch (VmmcException e) {
            h.status = e.result().code();
        } catch (RuntimeException e) {
            h.status = VmmcResult.BAD_IBUF_STATE.code();
        } finally {
            outstanding.decrementAndGet();
        }
    }

    /** Waits until every queued transfer is done (bounded by the transfers themselves). */
    void drain() {
        int spins = 0;
        while (outstanding.get() != 0) {
            if (++spins < 100) {
                Thread.onSpinWait();
            } else {
                java.util.concurrent.locks.LockSupport.parkNanos(20_000);
            }
        }
    }

    void importAsync(ImportRequest r, VmmcNode node, VmmcPid pid, int rbufid) {
        imports.execute(() -> {
            try {
                r.result.complete(Importer.importNow(vmmc, node, pid, rbufid, Importer.timeoutNanos()));
            } catch (RuntimeException e) {
                r.result.completeExceptionally(e);
            }
        });
    }

    void close() {
        transfers.shutdown();
        imports.shutdownNow();
        try {
            transfers.awaitTermination(10, TimeUnit.SECONDS);
            imports.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
