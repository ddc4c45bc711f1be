package io.softcmi.vmmc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Two threads of one process (the main thread and a handler, say) unimporting the same import at once. */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class VmmcUnimportRaceTest extends RxTxTestBase {
    private static final int ROUNDS = 2_000;
    private static final long BUDGET_NANOS = TimeUnit.SECONDS.toNanos(60);


    /** Exactly one of two concurrent UnimportRecvBuf calls on an import succeeds; the other gets BAD_IBUF_STATE. */
    @Test
    void shouldUnimportOnceWhenTwoThreadsUnimportTogether() throws Exception {
        int id = 1;
        MemorySegment buf = rx.with(v -> v.allocate(4));
        rx.run(v -> v.exportRecvBuf(buf, 4, id, null, EnumSet.of(BufFlag.READWRITE), 0));
        VmmcNode node = rx.with(Vmmc::myNode);
        VmmcPid pid = rx.with(Vmmc::myPid);
        Vmmc v = tx.vmmc;
        CyclicBarrier both = new CyclicBarrier(2);
        ExecutorService other = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "second-caller");
            t.setDaemon(true);
            return t;
        });
        try {
            CountDownLatch joined = new CountDownLatch(1);
            other.execute(() -> {
                v.ctx.iniTh(); // a second thread of the context, as the handler thread is
                v.ctx.enable(true);
                joined.countDown();
            });
            assertTrue(joined.await(30, TimeUnit.SECONDS));
            int doubles = 0;
            int rounds = 0;
            long deadline = System.nanoTime() + BUDGET_NANOS;
            for (; rounds < ROUNDS && System.nanoTime() < deadline; rounds++) {
                ImportHandle imp = tx.with(t -> t.importRecvBuf(node, pid, id));
                Future<VmmcResult> second = other.submit(() -> {
                    both.await(30, TimeUnit.SECONDS);
                    return VmmcCallsTest.code(() -> v.unimportRecvBuf(imp));
                });
                VmmcResult first = tx.call(() -> {
                    both.await(30, TimeUnit.SECONDS);
                    return VmmcCallsTest.code(() -> v.unimportRecvBuf(imp));
                });
                VmmcResult r2 = second.get(30, TimeUnit.SECONDS);
                if (first == VmmcResult.SUCCESS && r2 == VmmcResult.SUCCESS) {
                    doubles++;
                } else {
                    assertTrue(first == VmmcResult.SUCCESS ^ r2 == VmmcResult.SUCCESS, first + " and " + r2);
                    assertEquals(VmmcResult.BAD_IBUF_STATE, first == VmmcResult.SUCCESS ? r2 : first);
                }
            }
            System.out.printf("unimport race: %d rounds, %d with both unimports successful%n", rounds, doubles);
            assertTrue(rounds >= 10, "too few rounds in the time budget: " + rounds);
            assertEquals(0, doubles, "rounds in which both concurrent unimports reported success");
        } finally {
            other.shutdownNow();
            assertTrue(other.awaitTermination(30, TimeUnit.SECONDS));
        }
    }
}
