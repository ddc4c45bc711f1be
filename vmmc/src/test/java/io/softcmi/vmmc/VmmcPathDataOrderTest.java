package io.softcmi.vmmc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The order of one sender's data when its messages alternate between the home path (more than
 * {@code vmmc.directMaxBytes}) and the direct path: a receiver that polls a flag word written
 * by a small message sent after a large one must see every word of the large one once it sees
 * the flag (the manual: "program logic can be used to reason about what data has already
 * arrived (since messages are delivered in order)").
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class VmmcPathDataOrderTest extends RxTxTestBase {
    /** Words of a message that takes the home path (36 KiB). */
    private static final int LARGE = 9_000;
    private static final int ROUNDS = 300;
    private static int nextId = 100;

    /** How the sender sends the large message. */
    private enum Large { SEND_DATA, SEND_DATA_ASYNC, SEND_DATA_NOTIFY }

    /** A buffer that is copied into, with the large message sent each way the sender can. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(Large.class)
    void shouldSeeTheLargeMessageOnceItsFlagIsSeenInACopiedBuffer(Large large) throws Exception {
        MemorySegment buf = Arena.ofAuto().allocate((LARGE + 1) * 4L, Vmmc.PAGE);
        assertInOrder(buf, "copied", large);
    }

    @Test
    void shouldSeeTheLargeMessageOnceItsFlagIsSeenInABufferThatReceivesInPlace() throws Exception {
        MemorySegment buf = rx.with(v -> v.allocate(LARGE + 1));
        assertInOrder(buf, "in place", Large.SEND_DATA);
    }

    /**
     * {@link #ROUNDS} rounds of a large message (words 0..LARGE-1, each the round number) and a
     * small one (the flag at word LARGE, the round number) by SendData; this thread polls the
     * flag and, on seeing round r, counts the large words that are not r yet. The sender starts
     * the next round once the flag was seen, so every word is r or older; both stop after 120 s.
     */
    private static void assertInOrder(MemorySegment buf, String kind, Large how) throws Exception {
        int id = nextId++;
        long nwords = LARGE + 1L;
        rx.run(v -> v.exportRecvBuf(buf, nwords, id, (addr, value) -> { }, EnumSet.of(BufFlag.READWRITE), 0));
        VmmcNode n = rx.with(Vmmc::myNode);
        VmmcPid p = rx.with(Vmmc::myPid);
        ImportHandle imp = tx.with(v -> v.importRecvBuf(n, p, id));
        AtomicInteger seen = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        Thread sender = Thread.ofPlatform().start(() -> tx.run(v -> {
            MemorySegment large = Arena.ofAuto().allocate(LARGE * 4L, 4);
            MemorySegment flag = Arena.ofAuto().allocate(4, 4);
            for (int r = 1; r <= ROUNDS && !stop.get(); r++) {
                for (int k = 0; k < LARGE; k++) {
                    large.setAtIndex(ValueLayout.JAVA_INT, k, r);
                }
                flag.set(ValueLayout.JAVA_INT, 0, r);
                switch (how) {
                    case SEND_DATA -> v.sendData(large, imp.proxyBuf(), LARGE);
                    case SEND_DATA_ASYNC -> v.sendDataAsync(large, imp.proxyBuf(), LARGE);
                    case SEND_DATA_NOTIFY -> v.sendDataNotify(large, imp.proxyBuf(), LARGE);
                }
                v.sendData(flag, imp.proxyBuf() + 4L * LARGE, 1);
                while (seen.get() < r && !stop.get()) {
                    Thread.onSpinWait();
                }
            }
        }));
        int early = 0;
        int rounds = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (seen.get() < ROUNDS && System.nanoTime() < deadline) {
            int r = buf.getAtIndex(ValueLayout.JAVA_INT, LARGE);
            if (r <= seen.get()) {
                Thread.onSpinWait();
                continue;
            }
            rounds++;
            for (int k = 0; k < LARGE; k++) {
                if (buf.getAtIndex(ValueLayout.JAVA_INT, k) < r) {
                    early++;
                    break;
                }
            }
            seen.set(r);
        }
        stop.set(true);
        sender.join(TimeUnit.SECONDS.toMillis(60));
        System.out.printf("path data order (%s, %s): %d rounds seen, %d flags seen before their large message%n",
            kind, how, rounds, early);
        assertEquals(ROUNDS, seen.get(), "the last flag was not seen in time");
        assertEquals(0, early, early + " of " + rounds + " flags were seen before the large message sent before them");
    }
}
