package io.softcmi.vmmc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The order of one sender thread's messages with notification when they alternate between the
 * home path (more than {@code vmmc.directMaxBytes}) and the direct path (smaller ones).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class VmmcPathOrderTest extends RxTxTestBase {
    /** Words of a message that takes the home path (36 KiB). */
    private static final int LARGE = 9_000;
    private static final int PAIRS = 300;

    /**
     * A large SendDataNotify (home path) followed by a small one (direct path), {@link #PAIRS}
     * times: the handler must see 1, 2, 3, ... A wait for the home's answer before the change of
     * path alone does not order them (13–85 of 600 out of order before 2026-11-29): the home
     * answers once the notice is queued for the receiver, and the small message through the
     * receiver's inlet could be handled before the receiver's control reader had read that
     * notice. Every notice of an import with a route now goes through the route.
     */
    @Test
    void shouldRunHandlersInSendOrderAcrossAChangeOfPath() throws Exception {
        assertHandlersInOrder(1, false);
    }

    /** As above, the large messages by SendDataAsyncNotify (the process's transfer thread). */
    @Test
    void shouldRunHandlersInSendOrderAfterAsynchronousLargeMessages() throws Exception {
        assertHandlersInOrder(2, true);
    }

    private static void assertHandlersInOrder(int id, boolean async) throws Exception {
        long nwords = 2L * LARGE;
        MemorySegment buf = Arena.ofAuto().allocate(nwords * 4, Vmmc.PAGE);
        ConcurrentLinkedQueue<Integer> seen = new ConcurrentLinkedQueue<>();
        rx.run(v -> v.exportRecvBuf(buf, nwords, id, (addr, value) -> seen.add(value), EnumSet.of(BufFlag.READWRITE), 0));
        VmmcNode n = rx.with(Vmmc::myNode);
        VmmcPid p = rx.with(Vmmc::myPid);
        ImportHandle imp = tx.with(v -> v.importRecvBuf(n, p, id));
        tx.run(v -> {
            MemorySegment src = Arena.ofAuto().allocate(LARGE * 4L, 4);
            for (int k = 1; k <= 2 * PAIRS; k++) {
                boolean large = k % 2 == 1;
                int words = large ? LARGE : 16;
                src.setAtIndex(ValueLayout.JAVA_INT, words - 1, k);
                // large ones at word 0, small ones after them: no message overwrites another's last word
                // (the next sendDataNotify waits for an asynchronous one before src changes again)
                if (large && async) {
                    v.sendDataAsyncNotify(src, imp.proxyBuf(), words);
                } else {
                    v.sendDataNotify(src, imp.proxyBuf() + (large ? 0 : 4L * LARGE), words);
                }
            }
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (seen.size() < 2 * PAIRS && System.nanoTime() < deadline) {
            Thread.sleep(2);
        }
        int inversions = 0;
        int last = 0;
        for (int v : seen) {
            if (v < last) {
                inversions++;
            }
            last = Math.max(last, v);
        }
        System.out.printf("path order%s: %d handler calls, %d out of order%n", async ? " (async)" : "", seen.size(), inversions);
        assertEquals(2 * PAIRS, seen.size());
        assertTrue(inversions == 0, inversions + " handler calls came after a later message's");
    }
}
