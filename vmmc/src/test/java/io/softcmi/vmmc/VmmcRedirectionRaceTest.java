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
        Redirectable b = redirectable(1);
        ExportHandle h = b.export();
        ImportHandle imp = b.imported();
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

    /**
     * Each round: a message of {@link #BIG} words arrives with no redirection posted; as soon as its
     * first word is in the receive buffer, a redirection of the whole buffer is posted (the VMMC
     * manual: "the remainder of arriving message will be redirected"). Whatever the timing,
     * {@code EndRedir} names the words that went to the user buffer, and they are the message's
     * last ones: every word before them is in the receive buffer, every one from them on is in
     * the user buffer and not in the receive buffer.
     */
    @Test
    void shouldRedirectTheRestOfAMessageWhenARedirectionIsPostedWhileItArrives() throws Exception {
        Redirectable b = redirectable(2);
        MemorySegment buf = b.buffer();
        ExportHandle h = b.export();
        ImportHandle imp = b.imported();
        MemorySegment message = Arena.ofAuto().allocate(BIG * 4, 4);
        MemorySegment user = Arena.ofAuto().allocate(BIG * 4, 4);
        Vmmc v = rx.vmmc;
        int partial = 0;
        int rounds = 0;
        long deadline = System.nanoTime() + BUDGET_NANOS;
        for (; partial < MID_MESSAGE_ROUNDS && rounds < MAX_ROUNDS && System.nanoTime() < deadline; rounds++) {
            int base = (rounds + 1) << 22; // each round's words differ from every earlier round's
            for (int i = 0; i < BIG; i++) {
                message.setAtIndex(ValueLayout.JAVA_INT, i, base + i);
            }
            user.fill((byte) 0);
            v.clearDataEnd(h);
            tx.run(t -> t.sendData(message, imp.proxyBuf(), BIG));
            await(() -> buf.getAtIndex(ValueLayout.JAVA_INT, 0) == base);
            v.postRedir(h, 0, BIG, user);
            await(() -> v.dataEnd(h) == BIG - 1);
            Redirection r = v.endRedir(h);
            long first = r.numWords() == 0 ? BIG : r.firstWordOffset();
            assertEquals(BIG, first + r.numWords(), "the redirected words are the message's last ones: " + r);
            assertTrue(first >= 1, "the first word was in the receive buffer before the post: " + r);
            for (int i = 0; i < BIG; i++) {
                int inBuffer = buf.getAtIndex(ValueLayout.JAVA_INT, i);
                int inUser = user.getAtIndex(ValueLayout.JAVA_INT, i);
                if (i < first) {
                    assertEquals(base + i, inBuffer, "round " + rounds + ", word " + i + " before the redirected part");
                    assertEquals(0, inUser, "round " + rounds + ", word " + i + " in the user buffer too");
                } else {
                    assertEquals(base + i, inUser, "round " + rounds + ", word " + i + " of the redirected part");
                    assertTrue(inBuffer != base + i, "round " + rounds + ", word " + i + " in the receive buffer too");
                }
            }
            if (r.numWords() > 0) {
                partial++;
            }
        }
        System.out.printf("partial redirection: %d rounds, %d redirected the rest of a message%n", rounds, partial);
        assertTrue(partial >= 1, "no round posted its redirection before the message was copied, of " + rounds);
    }

    /** A receive buffer of {@link #BIG} words, exported {@code REDIRECTABLE} by rx and imported by tx. */
    private record Redirectable(MemorySegment buffer, ExportHandle export, ImportHandle imported) {
    }

    private static Redirectable redirectable(int id) {
        MemorySegment buf = Arena.ofAuto().allocate(BIG * 4, Vmmc.PAGE);
        ExportHandle h = rx.with(v -> v.exportRecvBuf(buf, BIG, id, null, EnumSet.of(BufFlag.WRITE_ONLY,
            BufFlag.REDIRECTABLE), 0));
        VmmcNode node = rx.with(Vmmc::myNode);
        VmmcPid pid = rx.with(Vmmc::myPid);
        return new Redirectable(buf, h, tx.with(v -> v.importRecvBuf(node, pid, id)));
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
