package io.softcmi.vmmc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Receive buffers in {@link Vmmc#allocate}'s memory are their segment ({@link ReceiveMemory}):
 * messages land in them without a copy at the receiver, the owner's own stores are what
 * {@code GetData} reads, and the buffer outlives its export. Buffers elsewhere, and
 * REDIRECTABLE ones, keep the copy.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class VmmcDirectBufferTest {
    @TempDir
    static Path share;
    static Endpoint rx;
    static Endpoint tx;
    static int nextId = 500;

    @BeforeAll
    static void start() {
        Endpoint.useSession(share, "direct", "alpha,beta");
        rx = new Endpoint("rx");
        tx = new Endpoint("tx");
    }

    @AfterAll
    static void stop() {
        Endpoint.closeAll(rx, tx);
    }

    static synchronized int id() {
        return nextId++;
    }

    private record Pair(ExportHandle exp, ImportHandle imp) {
    }

    private static Pair export(MemorySegment buf, long nwords, Set<BufFlag> flags, VmmcCallback cb) {
        int id = id();
        ExportHandle e = rx.with(v -> v.exportRecvBuf(buf, nwords, id, cb, flags, 0));
        VmmcNode n = rx.with(Vmmc::myNode);
        VmmcPid p = rx.with(Vmmc::myPid);
        return new Pair(e, tx.with(v -> v.importRecvBuf(n, p, id)));
    }

    private static MemorySegment counting(long nwords, int base) {
        MemorySegment m = Arena.ofAuto().allocate(nwords * 4, 4);
        for (long k = 0; k < nwords; k++) {
            m.setAtIndex(ValueLayout.JAVA_INT, k, base + (int) k);
        }
        return m;
    }

    private static void await(java.util.function.BooleanSupplier c) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!c.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "condition not met in time");
            Thread.sleep(2);
        }
    }

    @Test
    void shouldReceiveInPlaceAndCallTheHandlerWithTheLastWordOfTheMessage() throws Exception {
        long nwords = 3000;
        MemorySegment buf = rx.with(v -> v.allocate(nwords));
        List<long[]> calls = new CopyOnWriteArrayList<>();
        Pair p = export(buf, nwords, EnumSet.of(BufFlag.READWRITE), (addr, value) -> calls.add(new long[] {addr, value}));
        assertTrue(p.exp.direct, "a buffer at the start of allocate()'s memory is its segment");
        tx.run(v -> v.sendDataNotify(counting(2000, 7), p.imp.proxyBuf() + 4 * 100, 2000));
        await(() -> calls.size() == 1);
        assertEquals(buf.address() + 4 * 2099, calls.get(0)[0], "the last word, where it landed: in the buffer");
        assertEquals(7 + 1999, calls.get(0)[1]);
        for (long k = 0; k < 2000; k++) {
            assertEquals(7 + (int) k, buf.getAtIndex(ValueLayout.JAVA_INT, 100 + k), "word " + k);
        }
        assertEquals(0, buf.getAtIndex(ValueLayout.JAVA_INT, 99));
        assertEquals(0, buf.getAtIndex(ValueLayout.JAVA_INT, 2100));
    }

    @Test
    void shouldSendSmallMessagesStraightToTheExporterAndLargeOnesThroughTheHome() throws Exception {
        long nwords = 16 * 1024; // 64 KiB: above vmmc.directMaxBytes
        MemorySegment buf = rx.with(v -> v.allocate(nwords));
        List<long[]> calls = new CopyOnWriteArrayList<>();
        Pair p = export(buf, nwords, EnumSet.of(BufFlag.READWRITE), (addr, value) -> calls.add(new long[] {addr, value}));
        assertTrue(p.exp.inlet != null && p.imp.route != null, "the export serves an inlet and the import routes to it");
        tx.run(v -> v.sendDataNotify(counting(8, 50), p.imp.proxyBuf(), 8));
        await(() -> calls.size() == 1);
        assertEquals(1, p.exp.inlet.stores(), "8 words went straight to the exporter");
        assertEquals(57, calls.get(0)[1]);
        tx.run(v -> v.sendDataNotify(counting(nwords, 1000), p.imp.proxyBuf(), nwords));
        await(() -> calls.size() == 2);
        // its words through the home, its notice alone (an empty store) through the route, so that
        // it keeps its order with the messages that go straight (docs/vmmc.md, "Order across the two paths")
        assertEquals(2, p.exp.inlet.stores(), "64 KiB: only its notice came through the route");
        assertEquals(1000 + (int) nwords - 1, calls.get(1)[1]);
        assertEquals(1000, buf.getAtIndex(ValueLayout.JAVA_INT, 0), "the larger message, after the smaller one");
        tx.run(v -> v.sendDataNotify(counting(4, 9), p.imp.proxyBuf(), 4)); // back on the direct path, in order
        await(() -> calls.size() == 3);
        assertEquals(3, p.exp.inlet.stores());
        assertEquals(1004, buf.getAtIndex(ValueLayout.JAVA_INT, 4), "the rest of the larger message stays");
        assertEquals(12, buf.getAtIndex(ValueLayout.JAVA_INT, 3));
        // After UnexportRecvBuf the inlet refuses: reported as BadIbufState by a later call.
        rx.run(v -> v.unexportRecvBuf(p.exp));
        VmmcException refused = org.junit.jupiter.api.Assertions.assertThrows(VmmcException.class, () -> tx.run(v -> {
            v.sendData(counting(1, 77), p.imp.proxyBuf(), 1);
            v.sendDataNotify(counting(1, 78), p.imp.proxyBuf(), 1);
            v.sendDataNotify(counting(1, 79), p.imp.proxyBuf(), 1);
        }));
        assertEquals(VmmcResult.BAD_IBUF_STATE, refused.result());
        assertEquals(3, p.exp.inlet.stores(), "nothing stored after the unexport");
        assertEquals(9, buf.getAtIndex(ValueLayout.JAVA_INT, 0));
        assertEquals(3, calls.size(), "no handler ran after the unexport");
    }

    @Test
    void shouldLetGetDataReadTheOwnersOwnStoresIntoItsBuffer() {
        MemorySegment buf = rx.with(v -> v.allocate(16));
        Pair p = export(buf, 16, EnumSet.of(BufFlag.READWRITE), null);
        rx.run(v -> buf.setAtIndex(ValueLayout.JAVA_INT, 5, 4242)); // after the export, by the owner
        MemorySegment got = Arena.ofAuto().allocate(4, 4);
        tx.run(v -> v.getData(got, p.imp.proxyBuf() + 4 * 5, 1));
        assertEquals(4242, got.getAtIndex(ValueLayout.JAVA_INT, 0), "GetData reads the receive buffer itself");
    }

    @Test
    void shouldCopyIntoBuffersOutsideAllocateAndIntoRedirectableOnes() throws Exception {
        MemorySegment elsewhere = Arena.ofShared().allocate(64 * 4, 4096);
        Pair plain = export(elsewhere, 64, EnumSet.of(BufFlag.READWRITE), null);
        MemorySegment allocated = rx.with(v -> v.allocate(64));
        Pair redirectable = export(allocated, 64, EnumSet.of(BufFlag.READWRITE, BufFlag.REDIRECTABLE), null);
        MemorySegment inner = rx.with(v -> v.allocate(128)).asSlice(64 * 4);
        Pair offset = export(inner, 64, EnumSet.of(BufFlag.READWRITE), null);
        assertFalse(plain.exp.direct);
        assertFalse(redirectable.exp.direct);
        assertFalse(offset.exp.direct, "only a buffer at the start of an allocation is its segment");
        for (Pair p : List.of(plain, redirectable, offset)) {
            tx.run(v -> v.sendDataNotify(counting(64, 1), p.imp.proxyBuf(), 64));
            MemorySegment b = p.exp.buffer();
            await(() -> b.getAtIndex(ValueLayout.JAVA_INT, 63) == 64);
            assertEquals(1, b.getAtIndex(ValueLayout.JAVA_INT, 0));
        }
        assertEquals(63L, (long) rx.with(v -> v.dataEnd(redirectable.exp)));
    }

    @Test
    void shouldKeepTheMemoryAfterUnexportAndExportItAgain() throws Exception {
        MemorySegment buf = rx.with(v -> v.allocate(32));
        Pair first = export(buf, 32, EnumSet.of(BufFlag.READWRITE), null);
        tx.run(v -> v.sendDataNotify(counting(32, 100), first.imp.proxyBuf(), 32));
        await(() -> buf.getAtIndex(ValueLayout.JAVA_INT, 31) == 131);
        rx.run(v -> v.unexportRecvBuf(first.exp));
        assertEquals(131, buf.getAtIndex(ValueLayout.JAVA_INT, 31), "the caller's memory stays");
        buf.setAtIndex(ValueLayout.JAVA_INT, 0, -1);
        Pair again = export(buf, 32, EnumSet.of(BufFlag.READWRITE), null);
        assertTrue(again.exp.direct);
        tx.run(v -> v.sendDataNotify(counting(2, 500), again.imp.proxyBuf() + 4 * 30, 2));
        await(() -> buf.getAtIndex(ValueLayout.JAVA_INT, 31) == 501);
        assertEquals(-1, buf.getAtIndex(ValueLayout.JAVA_INT, 0));
    }

    @Test
    void shouldSendDataWithoutNotificationToADirectBufferWithoutANoticeToTheReceiver() throws Exception {
        long nwords = 256;
        List<Integer> values = new CopyOnWriteArrayList<>();
        MemorySegment buf = rx.with(v -> v.allocate(nwords));
        Pair direct = export(buf, nwords, EnumSet.of(BufFlag.READWRITE), (addr, value) -> values.add(value));
        assertTrue(direct.imp.inPlace, "the importer learns from the export record that the buffer receives in place");
        MemorySegment elsewhere = Arena.ofShared().allocate(nwords * 4, 4096);
        Pair copied = export(elsewhere, nwords, EnumSet.of(BufFlag.READWRITE), (addr, value) -> values.add(value));
        assertFalse(copied.imp.inPlace);
        long before = rx.with(v -> v.receiver.notices);
        for (int k = 0; k < 20; k++) {
            MemorySegment src = counting(nwords, 1000 * k);
            tx.run(v -> v.sendData(src, direct.imp.proxyBuf(), nwords));
        }
        MemorySegment last = counting(1, -7);
        tx.run(v -> v.sendDataNotify(last, direct.imp.proxyBuf(), 1));
        await(() -> values.size() == 1);
        assertEquals(1L, rx.with(v -> v.receiver.notices) - before, "one notice, the SendDataNotify's: the stores came alone");
        assertEquals(-7, buf.getAtIndex(ValueLayout.JAVA_INT, 0));
        for (long w = 1; w < nwords; w++) {
            assertEquals(19_000 + (int) w, buf.getAtIndex(ValueLayout.JAVA_INT, w), "the last SendData's word " + w);
        }
        // A buffer the receiver copies into still gets every message's notice.
        MemorySegment src = counting(nwords, 5);
        for (int k = 0; k < 20; k++) {
            tx.run(v -> v.sendData(src, copied.imp.proxyBuf(), nwords));
        }
        MemorySegment end = counting(1, -8);
        tx.run(v -> v.sendDataNotify(end, copied.imp.proxyBuf(), 1));
        await(() -> values.size() == 2);
        assertEquals(22L, rx.with(v -> v.receiver.notices) - before, "20 more notices for the copies, 1 for the handler");
        assertEquals(-8, elsewhere.getAtIndex(ValueLayout.JAVA_INT, 0));
        assertEquals(5 + (int) nwords - 1, elsewhere.getAtIndex(ValueLayout.JAVA_INT, nwords - 1));
    }

    @Test
    void shouldDeliverMessagesLargerThanOneRequestInPlace() throws Exception {
        long nwords = 3L << 18; // 3 MiB: more than one request's payload
        MemorySegment buf = rx.with(v -> v.allocate(nwords));
        List<Integer> values = new CopyOnWriteArrayList<>();
        Pair p = export(buf, nwords, EnumSet.of(BufFlag.READWRITE), (addr, value) -> values.add(value));
        MemorySegment src = counting(nwords, 1);
        tx.run(v -> v.sendData(src, p.imp.proxyBuf(), nwords));
        tx.run(v -> v.sendDataNotify(src, p.imp.proxyBuf(), nwords));
        await(() -> values.size() == 1);
        assertEquals((int) nwords, values.get(0));
        for (long k = 0; k < nwords; k += 4099) {
            assertEquals(1 + (int) k, buf.getAtIndex(ValueLayout.JAVA_INT, k), "word " + k);
        }
        assertEquals((int) nwords, buf.getAtIndex(ValueLayout.JAVA_INT, nwords - 1));
    }
}
