package io.softcmi.vmmc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Disabled;
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
     * times: the handler must see 1, 2, 3, ... The wait for the home's answer before the change
     * of path (SendWindow#onPath) does not order them: the home answers once the notice is
     * queued for the receiver, and the small message through the receiver's inlet can be
     * handled before the receiver's control reader has read that notice.
     */
    @Disabled("known bug, not fixed: handler calls out of order when a thread's messages go from the home path to the direct path")
    @Test
    void shouldRunHandlersInSendOrderAcrossAChangeOfPath() throws Exception {
        long nwords = 2L * LARGE;
        MemorySegment buf = Arena.ofAuto().allocate(nwords * 4, Vmmc.PAGE);
        ConcurrentLinkedQueue<Integer> seen = new ConcurrentLinkedQueue<>();
        rx.run(v -> v.exportRecvBuf(buf, nwords, 1, (addr, value) -> seen.add(value), EnumSet.of(BufFlag.READWRITE), 0));
        VmmcNode n = rx.with(Vmmc::myNode);
        VmmcPid p = rx.with(Vmmc::myPid);
        ImportHandle imp = tx.with(v -> v.importRecvBuf(n, p, 1));
        tx.run(v -> {
            MemorySegment src = Arena.ofAuto().allocate(LARGE * 4L, 4);
            for (int k = 1; k <= 2 * PAIRS; k++) {
                boolean large = k % 2 == 1;
                int words = large ? LARGE : 16;
                src.setAtIndex(ValueLayout.JAVA_INT, words - 1, k);
                // large ones at word 0, small ones after them: no message overwrites another's last word
                v.sendDataNotify(src, imp.proxyBuf() + (large ? 0 : 4L * LARGE), words);
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
        System.out.printf("path order: %d handler calls, %d out of order%n", seen.size(), inversions);
        assertEquals(2 * PAIRS, seen.size());
        assertTrue(inversions == 0, inversions + " handler calls came after a later message's");
    }
}
