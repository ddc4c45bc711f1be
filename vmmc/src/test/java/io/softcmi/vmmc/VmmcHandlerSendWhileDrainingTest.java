package io.softcmi.vmmc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A handler that sends through a route while the main thread of its process waits for the
 * answers of its own messages through a route: the answers of route messages are read by the
 * inlet thread, which runs the handler. Until the send window waited for answers outside its
 * lock, the handler's send waited for the main thread's wait, which ended only at the remote
 * timeout ({@code BadIbufState}).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class VmmcHandlerSendWhileDrainingTest extends RxTxTestBase {
    /** The remote timeout of both processes: a wait for an answer that nobody reads ends here. */
    private static final Duration REMOTE_TIMEOUT = Duration.ofSeconds(3);
    private static final int WORDS = 16;
    /** Messages of the sender's main thread (each SendDataNotify waits for the answer of the one before). */
    private static final int MAIN_MESSAGES = 1_500;
    /** Messages that make the sender's handler send one each. */
    private static final int TRIGGERS = 300;
    private static final int SINK = 1;
    private static final int TRIGGER = 2;

    @Test
    void shouldLetAHandlerSendWhileTheMainThreadWaitsForARouteAnswer() throws Exception {
        // Every message has words of its own: a later one never overwrites the value an
        // earlier one's handler reads. rx: the sink, main's messages first, the handler's after them.
        long sinkWords = (long) (MAIN_MESSAGES + TRIGGERS) * WORDS;
        MemorySegment sink = Arena.ofAuto().allocate(sinkWords * Vmmc.WORD, Vmmc.PAGE);
        long handlerHalf = sink.address() + (long) MAIN_MESSAGES * WORDS * Vmmc.WORD;
        ConcurrentLinkedQueue<Integer> fromMain = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Integer> fromHandler = new ConcurrentLinkedQueue<>();
        rx.run(v -> v.exportRecvBuf(sink, sinkWords, SINK,
            (addr, value) -> (addr < handlerHalf ? fromMain : fromHandler).add(value), EnumSet.of(BufFlag.READWRITE), 0));
        VmmcNode rxNode = rx.with(Vmmc::myNode);
        VmmcPid rxPid = rx.with(Vmmc::myPid);
        ImportHandle sinkImport = tx.with(v -> v.importRecvBuf(rxNode, rxPid, SINK));
        assertNotNull(sinkImport.route, "the sender reaches the sink through a route");

        // tx: each trigger makes its handler (on tx's inlet thread) forward the trigger's value to the sink
        ConcurrentLinkedQueue<RuntimeException> handlerFailures = new ConcurrentLinkedQueue<>();
        long triggerWords = (long) TRIGGERS * WORDS;
        MemorySegment triggerBuf = Arena.ofAuto().allocate(triggerWords * Vmmc.WORD, Vmmc.PAGE);
        MemorySegment forward = Arena.ofAuto().allocate((long) WORDS * Vmmc.WORD, Vmmc.WORD);
        tx.run(v -> v.exportRecvBuf(triggerBuf, triggerWords, TRIGGER, (addr, value) -> {
            try {
                forward.setAtIndex(ValueLayout.JAVA_INT, WORDS - 1, value);
                v.sendDataNotify(forward, sinkImport.proxyBuf() + slot(MAIN_MESSAGES + value), WORDS);
            } catch (RuntimeException e) {
                handlerFailures.add(e);
            }
        }, EnumSet.of(BufFlag.READWRITE), 0));
        VmmcNode txNode = tx.with(Vmmc::myNode);
        VmmcPid txPid = tx.with(Vmmc::myPid);
        ImportHandle triggerImport = rx.with(v -> v.importRecvBuf(txNode, txPid, TRIGGER));
        assertNotNull(triggerImport.route, "the triggers reach the sender through a route");
        tx.run(v -> v.ctx.ctlReconfTimeout(REMOTE_TIMEOUT));
        rx.run(v -> v.ctx.ctlReconfTimeout(REMOTE_TIMEOUT));

        long start = System.nanoTime();
        CompletableFuture<Void> triggers = CompletableFuture.runAsync(() -> rx.run(v -> {
            MemorySegment src = Arena.ofAuto().allocate((long) WORDS * Vmmc.WORD, Vmmc.WORD);
            for (int k = 1; k <= TRIGGERS; k++) {
                src.setAtIndex(ValueLayout.JAVA_INT, WORDS - 1, k);
                v.sendDataNotify(src, triggerImport.proxyBuf() + slot(k), WORDS);
            }
        }));
        List<Long> slowest = new ArrayList<>(List.of(0L));
        tx.run(v -> {
            MemorySegment src = Arena.ofAuto().allocate((long) WORDS * Vmmc.WORD, Vmmc.WORD);
            for (int k = 1; k <= MAIN_MESSAGES; k++) {
                src.setAtIndex(ValueLayout.JAVA_INT, WORDS - 1, k);
                long t = System.nanoTime();
                v.sendDataNotify(src, sinkImport.proxyBuf() + slot(k), WORDS);
                slowest.set(0, Math.max(slowest.get(0), System.nanoTime() - t));
            }
        });
        triggers.get(60, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while ((fromMain.size() < MAIN_MESSAGES || fromHandler.size() + handlerFailures.size() < TRIGGERS)
                && System.nanoTime() < deadline) {
            Thread.sleep(2);
        }
        long elapsed = System.nanoTime() - start;
        System.out.printf("handler send while draining: %d ms, slowest main send %.1f ms, %d + %d arrived, %d handler failures%n",
            elapsed / 1_000_000, slowest.get(0) / 1e6, fromMain.size(), fromHandler.size(), handlerFailures.size());
        assertTrue(handlerFailures.isEmpty(), "the handler's sends failed: " + handlerFailures.peek());
        assertEquals(inOrder(MAIN_MESSAGES), List.copyOf(fromMain), "the main thread's messages, in order");
        assertEquals(inOrder(TRIGGERS), List.copyOf(fromHandler), "the handler's messages, in order");
        // A stall shows as BadIbufState from a send (the wait ended at the remote timeout), not as a timing.
    }

    /** @return the byte offset of message {@code k}'s words (from 1) in its buffer */
    private static long slot(int k) {
        return (long) (k - 1) * WORDS * Vmmc.WORD;
    }

    private static List<Integer> inOrder(int n) {
        List<Integer> l = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            l.add(i);
        }
        return l;
    }
}
