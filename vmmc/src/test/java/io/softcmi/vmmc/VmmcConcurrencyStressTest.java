package io.softcmi.vmmc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Stress of the main concurrent paths of one receiver: several senders into one buffer, queued
 * asynchronous sends, notifications blocked and unblocked while messages arrive, and an unexport
 * while sends are on their way. Every test counts exact outcomes; all loops are bounded.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class VmmcConcurrencyStressTest {
    private static final int SENDERS = 3;
    /** A message this large (36 KiB) takes the home path; the small ones go straight to the exporter. */
    private static final int LARGE = 9_000;
    /** Message size of each sender in the fan-in test: direct, direct, home path. */
    private static final int[] WORDS = {16, 2_000, LARGE};
    /** Messages of each sender in the fan-in test. */
    private static final int[] COUNTS = {600, 150, 50};

    @TempDir
    static Path share;
    static Endpoint rx;
    static final List<Endpoint> senders = new ArrayList<>();
    static final AtomicInteger ids = new AtomicInteger(1);

    @BeforeAll
    static void start() {
        Endpoint.useSession(share, "stress", "alpha");
        rx = new Endpoint("rx");
        for (int s = 0; s < SENDERS; s++) {
            senders.add(new Endpoint("tx" + s));
        }
    }

    @AfterAll
    static void stop() {
        for (Endpoint e : senders) {
            e.close();
        }
        if (rx != null) {
            rx.close();
        }
    }

    /** One handler call: the sender and sequence number the last word carried, and the message's first word then. */
    private record Call(int sender, int seq, int firstWord) {
    }

    private static ImportHandle importInto(Endpoint tx, int id) {
        VmmcNode n = rx.with(Vmmc::myNode);
        VmmcPid p = rx.with(Vmmc::myPid);
        return tx.with(v -> v.importRecvBuf(n, p, id));
    }

    private static int tag(int sender, int seq) {
        return sender << 24 | seq;
    }

    /** @return the buffer word where message {@code seq} (from 1) of {@code sender} starts: every message has words of its own */
    private static long slot(int sender, int seq) {
        long at = 0;
        for (int s = 0; s < sender; s++) {
            at += (long) WORDS[s] * COUNTS[s];
        }
        return at + (long) (seq - 1) * WORDS[sender];
    }

    /**
     * Several senders, each from its own process and thread, send numbered messages with
     * notification into one buffer, each message into words of its own (a later message must
     * not overwrite the word a handler reads, which the manual allows): one sender small
     * messages and one medium-sized ones, both on the direct path, one large ones through the
     * home. Every message runs the handler exactly once, each sender's in order, and the handler
     * sees the whole message (its first word too). (Each sender keeps to one path: a sender
     * whose messages change path is {@link VmmcPathOrderTest}.)
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void shouldDeliverEveryMessageOfSeveralSendersOnceInOrder(boolean inPlace) throws Exception {
        long nwords = slot(SENDERS - 1, COUNTS[SENDERS - 1] + 1);
        int id = ids.getAndIncrement();
        MemorySegment buf = inPlace ? rx.with(v -> v.allocate(nwords)) : Arena.ofAuto().allocate(nwords * 4, Vmmc.PAGE);
        ConcurrentLinkedQueue<Call> calls = new ConcurrentLinkedQueue<>();
        ExportHandle h = rx.with(v -> v.exportRecvBuf(buf, nwords, id, (addr, value) -> {
            int sender = value >>> 24;
            int seq = value & 0xFF_FFFF;
            calls.add(new Call(sender, seq, buf.getAtIndex(ValueLayout.JAVA_INT, slot(sender, seq))));
        }, EnumSet.of(BufFlag.READWRITE), 0));
        List<CompletableFuture<Void>> running = new ArrayList<>();
        for (int s = 0; s < SENDERS; s++) {
            int sender = s;
            Endpoint tx = senders.get(s);
            ImportHandle imp = importInto(tx, id);
            running.add(CompletableFuture.runAsync(() -> tx.run(v -> {
                int words = WORDS[sender];
                MemorySegment src = Arena.ofAuto().allocate(words * 4L, 4);
                for (int k = 1; k <= COUNTS[sender]; k++) {
                    for (int w = 0; w < words; w++) {
                        src.setAtIndex(ValueLayout.JAVA_INT, w, tag(sender, k));
                    }
                    v.sendDataNotify(src, imp.proxyBuf() + 4L * slot(sender, k), words);
                }
            })));
        }
        CompletableFuture.allOf(running.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
        int total = java.util.Arrays.stream(COUNTS).sum();
        await(() -> calls.size() >= total);
        int[] last = new int[SENDERS];
        int torn = 0;
        for (Call c : calls) {
            assertEquals(last[c.sender()] + 1, c.seq(), "sender " + c.sender() + "'s messages in order, each once");
            last[c.sender()] = c.seq();
            if (c.firstWord() != tag(c.sender(), c.seq())) {
                torn++;
            }
        }
        for (int s = 0; s < SENDERS; s++) {
            assertEquals(COUNTS[s], last[s]);
        }
        assertEquals(0, torn, "handler calls that saw part of the message only");
        assertEquals(total, calls.size());
        rx.run(v -> v.unexportRecvBuf(h));
    }

    /**
     * Asynchronous sends with and without notification, many queued at once: every request
     * completes (SUCCESS), each notifying one runs the handler exactly once, in submission order.
     */
    @Test
    void shouldCompleteEveryAsynchronousSendOnce() throws Exception {
        int count = 600;
        int id = ids.getAndIncrement();
        MemorySegment buf = Arena.ofAuto().allocate(count * 4L, Vmmc.PAGE);
        ConcurrentLinkedQueue<Integer> seen = new ConcurrentLinkedQueue<>();
        ExportHandle h = rx.with(v -> v.exportRecvBuf(buf, count, id, (addr, value) -> seen.add(value),
            EnumSet.of(BufFlag.READWRITE), 0));
        Endpoint tx = senders.get(0);
        ImportHandle imp = importInto(tx, id);
        List<AsyncHandle> handles = tx.with(v -> {
            List<AsyncHandle> out = new ArrayList<>();
            for (int k = 1; k <= count; k++) {
                MemorySegment src = Arena.ofAuto().allocate(4, 4);
                src.setAtIndex(ValueLayout.JAVA_INT, 0, k);
                long at = imp.proxyBuf() + 4L * (k - 1);
                out.add(k % 2 == 0 ? v.sendDataAsyncNotify(src, at, 1) : v.sendDataAsync(src, at, 1));
            }
            return out;
        });
        await(() -> handles.stream().allMatch(a -> tx.vmmc.asyncStatus(a) != VmmcResult.IN_PROGRESS.code()));
        for (AsyncHandle a : handles) {
            assertEquals(VmmcResult.SUCCESS.code(), tx.vmmc.asyncStatus(a));
        }
        await(() -> seen.size() >= count / 2);
        tx.run(v -> v.getData(Arena.ofAuto().allocate(4, 4), imp.proxyBuf(), 1)); // a round trip: nothing more is on its way
        int expect = 2;
        for (int v : seen) {
            assertEquals(expect, v, "notifying requests' handler calls in order, each once");
            expect += 2;
        }
        assertEquals(count / 2, seen.size());
        rx.run(v -> v.unexportRecvBuf(h));
    }

    /**
     * The receiver blocks and unblocks notifications over and over (nested, too) while messages
     * with notification stream in: no handler call is lost (a queued one always runs once
     * notifications are unblocked), none runs twice, none runs while blocked, and they keep their order.
     */
    @Test
    void shouldRunEveryQueuedHandlerOnceWhileBlockingAndUnblocking() throws Exception {
        int count = 1_500;
        int id = ids.getAndIncrement();
        MemorySegment buf = rx.with(v -> v.allocate(count));
        ConcurrentLinkedQueue<Integer> seen = new ConcurrentLinkedQueue<>();
        AtomicBoolean blocked = new AtomicBoolean();
        AtomicInteger whileBlocked = new AtomicInteger();
        ExportHandle h = rx.with(v -> v.exportRecvBuf(buf, count, id, (addr, value) -> {
            if (blocked.get()) {
                whileBlocked.incrementAndGet();
            }
            seen.add(value);
        }, EnumSet.of(BufFlag.READWRITE), 0));
        Endpoint tx = senders.get(1);
        ImportHandle imp = importInto(tx, id);
        CompletableFuture<Void> sending = CompletableFuture.runAsync(() -> tx.run(v -> {
            MemorySegment src = Arena.ofAuto().allocate(4, 4);
            for (int k = 1; k <= count; k++) {
                src.setAtIndex(ValueLayout.JAVA_INT, 0, k);
                v.sendDataNotify(src, imp.proxyBuf() + 4L * (k - 1), 1); // words of its own: a queued call reads its own value
            }
        }));
        int toggles = rx.with(v -> {
            int n = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!sending.isDone() && n < 2_000_000 && System.nanoTime() < deadline) {
                v.blockNotifications();
                blocked.set(true);
                if (n % 3 == 0) {
                    v.blockNotifications();
                    v.unblockNotifications();
                }
                Thread.onSpinWait();
                blocked.set(false);
                v.unblockNotifications();
                n++;
            }
            return n;
        });
        sending.get(120, TimeUnit.SECONDS);
        await(() -> seen.size() >= count);
        tx.run(v -> v.getData(Arena.ofAuto().allocate(4, 4), imp.proxyBuf(), 1));
        System.out.printf("stress block/unblock: %d toggles, %d handler calls%n", toggles, seen.size());
        int expect = 1;
        for (int v : seen) {
            assertEquals(expect++, v, "handler calls in order, each once");
        }
        assertEquals(count, seen.size());
        assertEquals(0, whileBlocked.get(), "handler calls while notifications were blocked");
        rx.run(v -> v.unexportRecvBuf(h));
    }

    /**
     * The receiver unexports its buffer while a sender's asynchronous sends are on their way:
     * each send either succeeds, and then its word is in the buffer, or fails with BAD_IBUF_STATE
     * (the deleted token, the closed inlet): nothing is lost silently.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void shouldDeliverOrRefuseEverySendRacingAnUnexport(boolean direct) throws Exception {
        String before = System.getProperty("vmmc.directDelivery");
        System.setProperty("vmmc.directDelivery", Boolean.toString(direct));
        int lost = 0;
        int refused = 0;
        int delivered = 0;
        try {
            for (int round = 0; round < 20; round++) {
                int count = 400;
                int id = ids.getAndIncrement();
                MemorySegment buf = Arena.ofAuto().allocate(count * 4L, Vmmc.PAGE); // copied
                ExportHandle h = rx.with(v -> v.exportRecvBuf(buf, count, id, null, EnumSet.of(BufFlag.READWRITE), 0));
                Endpoint tx = senders.get(2);
                ImportHandle imp = importInto(tx, id);
                List<AsyncHandle> handles = tx.with(v -> {
                    List<AsyncHandle> out = new ArrayList<>();
                    for (int k = 1; k <= count; k++) {
                        MemorySegment src = Arena.ofAuto().allocate(4, 4);
                        src.setAtIndex(ValueLayout.JAVA_INT, 0, k);
                        out.add(v.sendDataAsync(src, imp.proxyBuf() + 4L * (k - 1), 1));
                    }
                    return out;
                });
                // unexport once a part of them is through
                await(() -> tx.vmmc.asyncStatus(handles.get(count / 4)) != VmmcResult.IN_PROGRESS.code());
                rx.run(v -> v.unexportRecvBuf(h));
                await(() -> handles.stream().allMatch(a -> tx.vmmc.asyncStatus(a) != VmmcResult.IN_PROGRESS.code()));
                for (int k = 1; k <= count; k++) {
                    int status = tx.vmmc.asyncStatus(handles.get(k - 1));
                    if (status == VmmcResult.SUCCESS.code()) {
                        delivered++;
                        if (buf.getAtIndex(ValueLayout.JAVA_INT, k - 1) != k) {
                            lost++;
                        }
                    } else {
                        assertEquals(VmmcResult.BAD_IBUF_STATE.code(), status, "send " + k);
                        refused++;
                    }
                }
                tx.run(v -> v.unimportRecvBuf(imp));
            }
        } finally {
            if (before == null) {
                System.clearProperty("vmmc.directDelivery");
            } else {
                System.setProperty("vmmc.directDelivery", before);
            }
        }
        System.out.printf("stress unexport during sends (direct %s): %d delivered, %d refused, %d lost%n", direct,
            delivered, refused, lost);
        assertEquals(0, lost, "sends that succeeded but never reached the buffer");
        assertTrue(delivered > 0 && refused > 0, "the unexport fell among the sends");
    }

    /**
     * An import racing the unexport of its buffer: the import fails with BAD_RBUF_STATE, or it
     * succeeds and then (the unexport having returned) a send through it fails with
     * BAD_IBUF_STATE; no send reaches a buffer after its unexport returned.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void shouldRefuseAnImportOrItsSendsWhenItRacesTheUnexport(boolean direct) throws Exception {
        String before = System.getProperty("vmmc.directDelivery");
        System.setProperty("vmmc.directDelivery", Boolean.toString(direct));
        int importsRefused = 0;
        int sendsRefused = 0;
        try {
            Endpoint tx = senders.get(0);
            VmmcNode n = rx.with(Vmmc::myNode);
            VmmcPid p = rx.with(Vmmc::myPid);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            for (int round = 0; round < 100 && System.nanoTime() < deadline; round++) {
                int id = ids.getAndIncrement();
                MemorySegment buf = Arena.ofAuto().allocate(4 * 4, Vmmc.PAGE);
                ExportHandle h = rx.with(v -> v.exportRecvBuf(buf, 4, id, null, EnumSet.of(BufFlag.READWRITE), 0));
                CompletableFuture<Object> imported = CompletableFuture.supplyAsync(() -> {
                    try {
                        return tx.with(v -> v.importRecvBuf(n, p, id));
                    } catch (VmmcException e) {
                        return e.result();
                    }
                });
                rx.run(v -> v.unexportRecvBuf(h));
                Object r = imported.get(60, TimeUnit.SECONDS);
                if (r instanceof ImportHandle imp) {
                    MemorySegment src = Arena.ofAuto().allocate(4, 4);
                    src.setAtIndex(ValueLayout.JAVA_INT, 0, 99);
                    AsyncHandle a = tx.with(v -> v.sendDataAsync(src, imp.proxyBuf(), 1));
                    await(() -> tx.vmmc.asyncStatus(a) != VmmcResult.IN_PROGRESS.code());
                    assertEquals(VmmcResult.BAD_IBUF_STATE.code(), tx.vmmc.asyncStatus(a), "a send after the unexport returned");
                    assertEquals(0, buf.getAtIndex(ValueLayout.JAVA_INT, 0));
                    sendsRefused++;
                    tx.run(v -> v.unimportRecvBuf(imp));
                } else {
                    assertEquals(VmmcResult.BAD_RBUF_STATE, r);
                    importsRefused++;
                }
            }
        } finally {
            if (before == null) {
                System.clearProperty("vmmc.directDelivery");
            } else {
                System.setProperty("vmmc.directDelivery", before);
            }
        }
        System.out.printf("stress import racing unexport (direct %s): %d imports refused, %d imported and their send refused%n",
            direct, importsRefused, sendsRefused);
    }

    private static void await(BooleanSupplier c) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!c.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "condition not met in time");
            Thread.sleep(1);
        }
    }
}
