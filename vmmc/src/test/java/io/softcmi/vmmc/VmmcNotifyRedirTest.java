package io.softcmi.vmmc;

import static io.softcmi.vmmc.VmmcCallsTest.await;
import static io.softcmi.vmmc.VmmcCallsTest.code;
import static io.softcmi.vmmc.VmmcCallsTest.words;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Notifications (order, blocking, NotInHandler) and transfer redirection. */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class VmmcNotifyRedirTest {
    @TempDir
    static Path share;
    static Endpoint rx;
    static Endpoint tx;
    static final AtomicInteger ids = new AtomicInteger(1);

    @BeforeAll
    static void start() {
        System.clearProperty("softcmi.node");
        System.setProperty("vmmc.share", share.toString());
        System.setProperty("vmmc.session", "notify");
        System.setProperty("vmmc.hosts", "alpha");
        rx = new Endpoint("rx");
        tx = new Endpoint("tx");
    }

    @AfterAll
    static void stop() {
        if (tx != null) {
            tx.close();
        }
        if (rx != null) {
            rx.close();
        }
    }

    record Pair(ExportHandle exp, ImportHandle imp, MemorySegment buf) {
    }

    static Pair pair(long nwords, EnumSet<BufFlag> flags, VmmcCallback cb) {
        int id = ids.getAndIncrement();
        MemorySegment buf = rx.with(v -> v.allocate(nwords));
        ExportHandle e = rx.with(v -> v.exportRecvBuf(buf, nwords, id, cb, flags, 0));
        VmmcNode n = rx.with(Vmmc::myNode);
        VmmcPid p = rx.with(Vmmc::myPid);
        return new Pair(e, tx.with(v -> v.importRecvBuf(n, p, id)), buf);
    }

    @Test
    void shouldRunTheHandlerAfterTheDataOneAtATimeInOrder() throws Exception {
        List<long[]> seen = new CopyOnWriteArrayList<>();
        AtomicInteger running = new AtomicInteger();
        AtomicBoolean overlap = new AtomicBoolean();
        AtomicReference<MemorySegment> bufRef = new AtomicReference<>();
        Pair p = pair(256, EnumSet.of(BufFlag.READWRITE), (addr, value) -> {
            if (running.incrementAndGet() != 1) {
                overlap.set(true);
            }
            // the whole message is in the buffer when the handler runs
            MemorySegment b = bufRef.get();
            long word = (addr - b.address()) / 4;
            seen.add(new long[] {word, value, b.getAtIndex(ValueLayout.JAVA_INT, word - 1)});
            running.decrementAndGet();
        });
        bufRef.set(p.buf);
        for (int k = 1; k <= 100; k++) {
            int val = k;
            tx.run(v -> v.sendDataNotify(words(-val, val), p.imp.proxyBuf() + 8 * val, 2));
        }
        await(() -> seen.size() == 100);
        assertFalse(overlap.get());
        for (int k = 1; k <= 100; k++) {
            long[] s = seen.get(k - 1);
            assertEquals(2 * k + 1, s[0]);
            assertEquals(k, s[1]);
            assertEquals(-k, s[2]);
        }
        // plain sends run no handler
        tx.run(v -> v.sendData(words(1), p.imp.proxyBuf(), 1));
        AsyncHandle h = tx.with(v -> v.sendDataAsyncNotify(words(9, 10), p.imp.proxyBuf() + 16, 2));
        await(() -> seen.size() == 101);
        assertEquals(10, seen.get(100)[1]);
        await(() -> tx.with(v -> v.asyncStatus(h)) == 0);
    }

    @Test
    void shouldQueueNotificationsWhileBlockedAndNest() throws Exception {
        List<Integer> seen = new CopyOnWriteArrayList<>();
        Pair p = pair(16, EnumSet.of(BufFlag.READWRITE), (addr, value) -> seen.add(value));
        rx.run(Vmmc::blockNotifications);
        rx.run(Vmmc::blockNotifications);
        for (int k = 1; k <= 5; k++) {
            int val = k;
            tx.run(v -> v.sendDataNotify(words(val), p.imp.proxyBuf() + 4 * val, 1));
        }
        // the data arrives while notifications are blocked
        await(() -> p.buf.getAtIndex(ValueLayout.JAVA_INT, 5) == 5);
        assertEquals(VmmcResult.BLOCKED_NOTIFICATIONS, code(() -> rx.run(v -> v.unexportRecvBuf(p.exp))));
        Thread.sleep(100);
        assertTrue(seen.isEmpty());
        assertEquals(1, (int) rx.with(Vmmc::unblockNotifications));
        Thread.sleep(100);
        assertTrue(seen.isEmpty());
        assertEquals(0, (int) rx.with(Vmmc::unblockNotifications));
        await(() -> seen.size() == 5);
        assertEquals(List.of(1, 2, 3, 4, 5), seen);
        assertEquals(0, (int) rx.with(Vmmc::unblockNotifications));
    }

    @Test
    void shouldRefuseUnblockingInsideAHandler() throws Exception {
        AtomicReference<VmmcResult> inner = new AtomicReference<>();
        AtomicInteger nested = new AtomicInteger(-1);
        Vmmc[] self = new Vmmc[1];
        self[0] = rx.vmmc;
        Pair p = pair(16, EnumSet.of(BufFlag.READWRITE), (addr, value) -> {
            inner.set(code(() -> self[0].unblockNotifications()));
            self[0].blockNotifications();
            nested.set(self[0].unblockNotifications());
        });
        tx.run(v -> v.sendDataNotify(words(1), p.imp.proxyBuf(), 1));
        await(() -> inner.get() != null && nested.get() >= 0);
        assertEquals(VmmcResult.NOT_IN_HANDLER, inner.get());
        assertEquals(1, nested.get());
    }

    @Test
    void shouldRedirectAWholeMessageAndReportIt() throws Exception {
        Pair p = pair(64, EnumSet.of(BufFlag.READWRITE, BufFlag.REDIRECTABLE), null);
        assertEquals(VmmcResult.NO_SUCH_ERROR.code(), (long) rx.with(v -> v.dataEnd(p.exp)));
        MemorySegment user = Arena.ofAuto().allocate(64 * 4, 4);
        rx.run(v -> v.postRedir(p.exp, 0, 64, user));
        assertEquals(VmmcResult.BAD_RBUF_STATE, code(() -> rx.run(v -> v.postRedir(p.exp, 0, 64, user))));
        tx.run(v -> v.sendData(words(11, 12, 13, 14), p.imp.proxyBuf() + 4 * 10, 4));
        await(() -> (long) rx.with(v -> v.dataEnd(p.exp)) == 13);
        Redirection r = rx.with(v -> v.endRedir(p.exp));
        assertEquals(new Redirection(4, 10), r);
        assertEquals(11, user.getAtIndex(ValueLayout.JAVA_INT, 10));
        assertEquals(14, user.getAtIndex(ValueLayout.JAVA_INT, 13));
        assertEquals(0, p.buf.getAtIndex(ValueLayout.JAVA_INT, 10), "redirected words do not land in the default buffer");
        rx.run(v -> v.clearDataEnd(p.exp));
        assertEquals(VmmcResult.NO_SUCH_ERROR.code(), (long) rx.with(v -> v.dataEnd(p.exp)));
        assertEquals(VmmcResult.BAD_RBUF_STATE, code(() -> rx.run(v -> v.endRedir(p.exp))));
    }

    @Test
    void shouldReportPartialRedirectionExactlyAndEndItAfterOneMessage() throws Exception {
        List<Long> addrs = new CopyOnWriteArrayList<>();
        Pair p = pair(64, EnumSet.of(BufFlag.WRITE_ONLY, BufFlag.REDIRECTABLE), (addr, value) -> addrs.add(addr));
        MemorySegment user = Arena.ofAuto().allocate(16 * 4, 4);
        // window: words 20..35; message: words 16..27 -> words 20..27 redirected, at user offset 0..7
        rx.run(v -> v.postRedir(p.exp, 20, 16, user));
        int[] msg = new int[12];
        for (int k = 0; k < 12; k++) {
            msg[k] = 100 + k;
        }
        tx.run(v -> v.sendDataNotify(words(msg), p.imp.proxyBuf() + 4 * 16, 12));
        await(() -> addrs.size() == 1);
        assertEquals(user.address() + 7 * 4, addrs.get(0), "the handler gets the last word where it landed");
        assertEquals(100, p.buf.getAtIndex(ValueLayout.JAVA_INT, 16));
        assertEquals(103, p.buf.getAtIndex(ValueLayout.JAVA_INT, 19));
        assertEquals(104, user.getAtIndex(ValueLayout.JAVA_INT, 0));
        assertEquals(111, user.getAtIndex(ValueLayout.JAVA_INT, 7));
        // the redirection ended with that message: the next one goes to the default buffer
        tx.run(v -> v.sendDataNotify(words(555), p.imp.proxyBuf() + 4 * 30, 1));
        await(() -> addrs.size() == 2);
        assertEquals(555, p.buf.getAtIndex(ValueLayout.JAVA_INT, 30));
        assertEquals(new Redirection(8, 0), rx.with(v -> v.endRedir(p.exp)));
        assertEquals(30L, (long) rx.with(v -> v.dataEnd(p.exp)));
        // a redirection nothing reached reports zero words
        rx.run(v -> v.postRedir(p.exp, 0, 4, user));
        assertEquals(new Redirection(0, 0), rx.with(v -> v.endRedir(p.exp)));
        Pair plain = pair(8, EnumSet.of(BufFlag.READWRITE), null);
        assertEquals(VmmcResult.BAD_RBUF_STATE, code(() -> rx.run(v -> v.postRedir(plain.exp, 0, 4, user))));
        assertEquals(VmmcResult.BAD_RBUF_STATE, code(() -> rx.run(v -> v.dataEnd(plain.exp))));
    }

    @Test
    void shouldMakeBlockWaitForARunningHandler() throws Exception {
        AtomicBoolean running = new AtomicBoolean();
        java.util.concurrent.CountDownLatch entered = new java.util.concurrent.CountDownLatch(1);
        Pair p = pair(4, EnumSet.of(BufFlag.READWRITE), (addr, value) -> {
            running.set(true);
            entered.countDown();
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            running.set(false);
        });
        tx.run(v -> v.sendDataNotify(words(1), p.imp.proxyBuf(), 1));
        assertTrue(entered.await(60, TimeUnit.SECONDS));
        // blocking from the main thread returns only once the running handler has finished
        assertFalse((boolean) rx.with(v -> {
            v.blockNotifications();
            return running.get();
        }));
        assertEquals(0, (int) rx.with(Vmmc::unblockNotifications));
    }

    /**
     * The latency sample's pattern: each side sends its next message from its handler
     * (SendDataNotify is allowed there, and returns before the home answers). Every handler call
     * sees the value just sent, in order, until the exchange ends.
     */
    @Test
    void shouldPingPongFromHandlersInOrder() throws Exception {
        int rounds = 200;
        AtomicInteger bad = new AtomicInteger();
        AtomicInteger got = new AtomicInteger();
        AtomicReference<ImportHandle> toTx = new AtomicReference<>();
        AtomicReference<ImportHandle> toRx = new AtomicReference<>();
        MemorySegment rxSrc = rx.with(v -> v.allocate(1));
        MemorySegment txSrc = tx.with(v -> v.allocate(1));
        // rx echoes every value back from its handler
        Pair toRxPair = pair(1, EnumSet.of(BufFlag.READWRITE), (addr, value) -> {
            rxSrc.setAtIndex(ValueLayout.JAVA_INT, 0, value);
            rx.vmmc.sendDataNotify(rxSrc, toTx.get().proxyBuf(), 1);
        });
        toRx.set(toRxPair.imp());
        int id = ids.getAndIncrement();
        MemorySegment txBuf = tx.with(v -> v.allocate(1));
        // tx checks the echo and sends the next value from its handler
        tx.run(v -> v.exportRecvBuf(txBuf, 1, id, (addr, value) -> {
            int expected = got.incrementAndGet();
            if (value != expected || txBuf.getAtIndex(ValueLayout.JAVA_INT, 0) != expected) {
                bad.incrementAndGet();
            }
            if (expected < rounds) {
                txSrc.setAtIndex(ValueLayout.JAVA_INT, 0, expected + 1);
                tx.vmmc.sendDataNotify(txSrc, toRx.get().proxyBuf(), 1);
            }
        }, EnumSet.of(BufFlag.READWRITE), 0));
        VmmcNode n = tx.with(Vmmc::myNode);
        VmmcPid pid = tx.with(Vmmc::myPid);
        toTx.set(rx.with(v -> v.importRecvBuf(n, pid, id)));
        tx.run(v -> {
            txSrc.setAtIndex(ValueLayout.JAVA_INT, 0, 1);
            v.sendDataNotify(txSrc, toRx.get().proxyBuf(), 1);
        });
        await(() -> got.get() >= rounds);
        Thread.sleep(50); // nothing more arrives after the last round
        assertEquals(rounds, got.get());
        assertEquals(0, bad.get());
    }
}
