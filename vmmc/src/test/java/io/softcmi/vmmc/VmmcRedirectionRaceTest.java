package io.softcmi.vmmc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Transfer redirection racing the copy of a large message: the receiver ends a redirection the
 * message has started to fill and posts a new one while the rest of that message is still being
 * copied (one chunk of {@link Receiver#CHUNK_WORDS} at a time).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class VmmcRedirectionRaceTest extends RxTxTestBase {
    /** A message of this many words takes many copy chunks, so the re-post lands in the middle of it. */
    private static final long BIG = 16 * Receiver.CHUNK_WORDS;
    /** Rounds stop once this many re-posts landed in the middle of a message (or at the bounds below). */
    private static final int MID_MESSAGE_ROUNDS = 30;
    private static final int MAX_ROUNDS = 1_500;
    private static final long BUDGET_NANOS = TimeUnit.SECONDS.toNanos(60);


    /**
     * Each round: a redirection of word 0 is posted, a message of {@link #BIG} words from word 0
     * arrives; as soon as its first word is redirected the receiver ends that redirection and
     * posts a new one on word 0. The next message (one word at word 0) is the first to reach the
     * new window, so it must be redirected: EndRedir reports one word and the word is in the new
     * user buffer, not in the receive buffer.
     */
    @Test
    void shouldRedirectTheNextMessageIntoARedirectionPostedWhileAnEarlierOneIsCopied() throws Exception {
        int id = 1;
        MemorySegment buf = Arena.ofAuto().allocate(BIG * 4, Vmmc.PAGE);
        ExportHandle h = rx.with(v -> v.exportRecvBuf(buf, BIG, id, null, EnumSet.of(BufFlag.WRITE_ONLY,
            BufFlag.REDIRECTABLE), 0));
        VmmcNode node = rx.with(Vmmc::myNode);
        VmmcPid pid = rx.with(Vmmc::myPid);
        ImportHandle imp = tx.with(v -> v.importRecvBuf(node, pid, id));
        MemorySegment big = Arena.ofAuto().allocate(BIG * 4, 4);
        MemorySegment one = Arena.ofAuto().allocate(4, 4);
        MemorySegment first = Arena.ofAuto().allocate(4, 4);
        MemorySegment second = Arena.ofAuto().allocate(4, 4);
        Vmmc v = rx.vmmc; // the redirection calls touch no CMI state: any thread may make them
        int lost = 0;
        int midMessage = 0;
        int rounds = 0;
        long deadline = System.nanoTime() + BUDGET_NANOS;
        for (; midMessage < MID_MESSAGE_ROUNDS && rounds < MAX_ROUNDS && System.nanoTime() < deadline; rounds++) {
            int marker = 1_000 + rounds;
            v.clearDataEnd(h);
            v.postRedir(h, 0, 1, first);
            big.fill((byte) 0);
            big.setAtIndex(ValueLayout.JAVA_INT, 0, -marker);
            tx.run(t -> t.sendData(big, imp.proxyBuf(), BIG));
            await(() -> redirected(h) > 0);
            assertEquals(new Redirection(1, 0), v.endRedir(h));
            v.postRedir(h, 0, 1, second);
            if (v.dataEnd(h) != BIG - 1) {
                midMessage++; // the re-post was made while the big message was still being copied
            }
            await(() -> v.dataEnd(h) == BIG - 1);
            v.clearDataEnd(h);
            one.setAtIndex(ValueLayout.JAVA_INT, 0, marker);
            tx.run(t -> t.sendData(one, imp.proxyBuf(), 1));
            await(() -> v.dataEnd(h) == 0);
            Redirection r = v.endRedir(h);
            if (!r.equals(new Redirection(1, 0)) || second.getAtIndex(ValueLayout.JAVA_INT, 0) != marker) {
                lost++;
            }
        }
        System.out.printf("redirection race: %d rounds, %d re-posted mid-message, %d next messages not redirected%n",
            rounds, midMessage, lost);
        assertTrue(rounds >= 10, "too few rounds in the time budget: " + rounds);
        assertEquals(0, lost, "messages that missed a redirection posted while an earlier message was copied");
    }

    private static long redirected(ExportHandle h) {
        synchronized (h) {
            return h.redirCount;
        }
    }

    private static void await(BooleanSupplier c) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!c.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "condition not met in time");
            Thread.yield();
        }
    }
}
