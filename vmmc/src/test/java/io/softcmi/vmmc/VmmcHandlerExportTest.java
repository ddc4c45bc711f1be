package io.softcmi.vmmc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * ExportRecvBuf and UnexportRecvBuf called by a notification handler while the main thread is
 * in UnexportRecvBuf (docs/vmmc.md, "Handlers and the endpoint's calls"): before 2026-11-29 the
 * two threads waited for each other for good.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class VmmcHandlerExportTest extends RxTxTestBase {

    /**
     * The handler waits until the main thread is parked inside its UnexportRecvBuf of another
     * buffer, then exports a third buffer and unexports it. Both threads' calls return, and the
     * main thread's unexport still refuses a second unexport of its buffer.
     */
    @Test
    void shouldLetAHandlerExportAndUnexportWhileTheMainThreadUnexports() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        List<String> handlerSaw = new CopyOnWriteArrayList<>();
        Thread rxThread = rx.with(v -> Thread.currentThread());
        MemorySegment third = Arena.ofAuto().allocate(4 * 4, Vmmc.PAGE);
        MemorySegment first = Arena.ofAuto().allocate(4 * 4, Vmmc.PAGE);
        rx.run(v -> v.exportRecvBuf(first, 4, 1, (addr, value) -> {
            entered.countDown();
            handlerSaw.add(awaitParkedIn(rxThread, "unexportRecvBuf") ? "main waited" : "main never waited");
            handlerSaw.add(outcome(() -> {
                ExportHandle h3 = rx.vmmc.exportRecvBuf(third, 4, 3, null, EnumSet.of(BufFlag.READWRITE), 0);
                rx.vmmc.unexportRecvBuf(h3);
            }));
        }, EnumSet.of(BufFlag.READWRITE), 0));
        ExportHandle second = rx.with(v -> v.exportRecvBuf(Arena.ofAuto().allocate(4 * 4, Vmmc.PAGE), 4, 2, null,
            EnumSet.of(BufFlag.READWRITE), 0));
        VmmcNode node = rx.with(Vmmc::myNode);
        VmmcPid pid = rx.with(Vmmc::myPid);
        ImportHandle toFirst = tx.with(v -> v.importRecvBuf(node, pid, 1));
        MemorySegment src = Arena.ofAuto().allocate(4, 4);
        tx.run(v -> v.sendDataNotify(src, toFirst.proxyBuf(), 1));
        assertTrue(entered.await(60, TimeUnit.SECONDS), "the handler ran");

        CompletableFuture<Void> unexport = CompletableFuture.runAsync(() -> rx.run(v -> v.unexportRecvBuf(second)));
        unexport.get(60, TimeUnit.SECONDS);

        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (handlerSaw.size() < 2 && System.nanoTime() < until) {
            Thread.sleep(5);
        }
        assertEquals(List.of("main waited", "returned"), handlerSaw);
        VmmcException again = assertThrows(VmmcException.class, () -> rx.run(v -> v.unexportRecvBuf(second)));
        assertEquals(VmmcResult.BAD_RBUF_STATE, again.result());
        tx.run(v -> v.unimportRecvBuf(toFirst));
    }

    /** Waits (at most 10 s) until {@code t} waits or is blocked with {@code method} on its stack. */
    private static boolean awaitParkedIn(Thread t, String method) {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < until) {
            Thread.State s = t.getState();
            boolean parked = s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING || s == Thread.State.BLOCKED;
            if (parked && Arrays.stream(t.getStackTrace()).anyMatch(f -> f.getMethodName().equals(method))) {
                return true;
            }
            Thread.onSpinWait();
        }
        return false;
    }

    private static String outcome(Runnable call) {
        try {
            call.run();
            return "returned";
        } catch (RuntimeException e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }
}
