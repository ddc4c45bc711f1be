package io.softcmi.vmmc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The vmmc_* calls between two endpoints of one JVM on the embedded node. */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class VmmcCallsTest {
    @TempDir
    static Path share;
    static Endpoint rx;
    static Endpoint tx;
    static int nextId = 100;

    @BeforeAll
    static void start() {
        Endpoint.useSession(share, "calls", "alpha,beta");
        rx = new Endpoint("rx");
        tx = new Endpoint("tx");
    }

    @AfterAll
    static void stop() {
        Endpoint.closeAll(rx, tx);
    }

    static VmmcResult code(Runnable r) {
        try {
            r.run();
            return VmmcResult.SUCCESS;
        } catch (VmmcException e) {
            return e.result();
        }
    }

    static void await(BooleanSupplier c) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!c.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "condition not met in time");
            Thread.sleep(2);
        }
    }

    static synchronized int id() {
        return nextId++;
    }

    record Pair(ExportHandle exp, ImportHandle imp, MemorySegment buf) {
    }

    static Pair pair(long nwords, Set<BufFlag> flags, VmmcCallback cb) {
        int id = id();
        MemorySegment buf = rx.with(v -> v.allocate(nwords));
        ExportHandle e = rx.with(v -> v.exportRecvBuf(buf, nwords, id, cb, flags, 0));
        VmmcNode n = rx.with(Vmmc::myNode);
        VmmcPid p = rx.with(Vmmc::myPid);
        ImportHandle i = tx.with(v -> v.importRecvBuf(n, p, id));
        return new Pair(e, i, buf);
    }

    static MemorySegment words(int... values) {
        MemorySegment m = Arena.ofAuto().allocate(values.length * 4L, 4);
        for (int k = 0; k < values.length; k++) {
            m.setAtIndex(ValueLayout.JAVA_INT, k, values[k]);
        }
        return m;
    }

    @Test
    void shouldReportSessionHostsPidsAndConstants() {
        assertEquals(2, rx.with(Vmmc::allHosts).size());
        assertEquals("alpha", rx.with(Vmmc::myHostName));
        assertEquals(4, rx.with(Vmmc::wordSize));
        assertEquals(4096, rx.with(Vmmc::pageSize));
        assertEquals(2, rx.with(Vmmc::version)[0]);
        assertNotEquals(rx.with(Vmmc::myPid), tx.with(Vmmc::myPid));
        VmmcNode beta = rx.with(v -> v.nameToNode("beta"));
        assertEquals("beta", rx.with(v -> v.nodeToName(beta)));
        assertTrue((boolean) rx.with(v -> v.equalNodes(beta, new VmmcNode(2, "beta"))));
        assertFalse((boolean) rx.with(v -> v.equalNodes(beta, v.myNode())));
        assertEquals(VmmcResult.NO_SUCH_NODE, code(() -> rx.run(v -> v.nameToNode("gamma"))));
        assertEquals(VmmcResult.NO_SUCH_NODE, code(() -> rx.run(v -> v.nodeToName(new VmmcNode(9, "gamma")))));
        assertEquals(VmmcResult.NO_SUCH_NODE, code(() -> rx.run(v -> v.nodeToName(null))));
        // vmmc_Parent's NoParent is an empty parent(): no call returns the code
        assertTrue(rx.with(Vmmc::parent).isEmpty());
        // Spawn checks the node before it starts anything
        assertEquals(VmmcResult.NO_SUCH_NODE, code(() -> rx.run(v -> v.spawn("java.lang.Object", null, new VmmcNode(9, "gamma")))));
        assertTrue(Vmmc.errorStr(VmmcResult.BAD_SIZE.code()).startsWith("vmmcErr_BadSize"));
        assertEquals(VmmcResult.BAD_SIZE, VmmcResult.of(-7));
    }

    @Test
    void shouldDeliverSendDataIntoTheReceiveBufferInOrder() throws Exception {
        Pair p = pair(1024, EnumSet.of(BufFlag.READWRITE), null);
        for (int k = 0; k < 200; k++) {
            int val = k;
            tx.run(v -> v.sendData(words(val, val + 1), p.imp.proxyBuf() + 8, 2));
        }
        await(() -> p.buf.getAtIndex(ValueLayout.JAVA_INT, 3) == 200);
        assertEquals(199, p.buf.getAtIndex(ValueLayout.JAVA_INT, 2));
        // pointer arithmetic in DestSpace: the last word of the buffer
        tx.run(v -> v.sendData(words(77), p.imp.proxyBuf() + 4 * 1023, 1));
        await(() -> p.buf.getAtIndex(ValueLayout.JAVA_INT, 1023) == 77);
        MemorySegment got = Arena.ofAuto().allocate(8, 4);
        tx.run(v -> v.getData(got, p.imp.proxyBuf() + 8, 2));
        assertEquals(199, got.getAtIndex(ValueLayout.JAVA_INT, 0));
        assertEquals(200, got.getAtIndex(ValueLayout.JAVA_INT, 1));
    }

    @Test
    void shouldCheckSizesAlignmentAndProxyRanges() {
        Pair p = pair(16, EnumSet.of(BufFlag.READWRITE), null);
        long base = p.imp.proxyBuf();
        MemorySegment src = words(new int[32]);
        assertEquals(VmmcResult.BAD_SIZE, code(() -> tx.run(v -> v.sendData(src, base, 0))));
        assertEquals(VmmcResult.BAD_ALIGNMENT, code(() -> tx.run(v -> v.sendData(src, base + 2, 1))));
        assertEquals(VmmcResult.BAD_ALIGNMENT, code(() -> tx.run(v -> v.sendData(src.asSlice(2), base, 1))));
        assertEquals(VmmcResult.BAD_PROXY_ADDR, code(() -> tx.run(v -> v.sendData(src, 4, 1))));
        assertEquals(VmmcResult.BAD_PROXY_EXTENSION, code(() -> tx.run(v -> v.sendData(src, base + 4, 16))));
        assertEquals(VmmcResult.BAD_ARG, code(() -> tx.run(v -> v.sendData(words(1), base, 2))));
        // the other five transfer calls share these checks (Transfer.check): one of each per call
        assertEquals(VmmcResult.BAD_SIZE, code(() -> tx.run(v -> v.sendDataAsync(src, base, 0))));
        assertEquals(VmmcResult.BAD_ALIGNMENT, code(() -> tx.run(v -> v.sendDataNotify(src, base + 2, 1))));
        assertEquals(VmmcResult.BAD_ARG, code(() -> tx.run(v -> v.sendDataAsyncNotify(null, base, 1))));
        assertEquals(VmmcResult.BAD_PROXY_ADDR, code(() -> tx.run(v -> v.getData(src, 4, 1))));
        assertEquals(VmmcResult.BAD_PROXY_EXTENSION, code(() -> tx.run(v -> v.getDataAsync(src, base + 4, 16))));
        Pair q = pair(16, EnumSet.of(BufFlag.READWRITE), null);
        // first word in q's region: last one past it lands in q's guard page or beyond: a different import or extension
        VmmcResult r = code(() -> tx.run(v -> v.sendData(words(new int[4096]), base, 4096)));
        assertTrue(r == VmmcResult.BAD_PROXY_ADDR || r == VmmcResult.BAD_PROXY_EXTENSION, r.toString());
        assertEquals(VmmcResult.BAD_PROXY_ADDR, code(() -> tx.run(v -> v.sendData(words(new int[4096]), base, 2049))));
        assertEquals(VmmcResult.SUCCESS, code(() -> tx.run(v -> v.sendData(src, q.imp.proxyBuf(), 16))));
    }

    @Test
    void shouldEnforceExportRules() {
        int id = id();
        MemorySegment buf = rx.with(v -> v.allocate(64));
        rx.run(v -> v.exportRecvBuf(buf.asSlice(0, 128), 32, id, null, EnumSet.of(BufFlag.WRITE_ONLY), 0));
        assertEquals(VmmcResult.BUF_ALREADY_EXISTS, code(() -> rx.run(v ->
            v.exportRecvBuf(buf.asSlice(128, 128), 32, id, null, EnumSet.of(BufFlag.WRITE_ONLY), 0))));
        assertEquals(VmmcResult.OVERLAPPED_BUFS, code(() -> rx.run(v ->
            v.exportRecvBuf(buf.asSlice(64, 128), 32, id(), null, EnumSet.of(BufFlag.WRITE_ONLY), 0))));
        assertEquals(VmmcResult.SUCCESS, code(() -> rx.run(v ->
            v.exportRecvBuf(buf.asSlice(128, 128), 32, id(), null, EnumSet.of(BufFlag.READ_ONLY, BufFlag.GLOBAL_SPACE), 0))));
        MemorySegment odd = rx.with(w -> w.allocate(4)).asSlice(1, 8);
        assertEquals(VmmcResult.BAD_ALIGNMENT, code(() -> rx.run(v ->
            v.exportRecvBuf(odd, 2, id(), null, EnumSet.of(BufFlag.READWRITE), 0))));
        assertEquals(VmmcResult.BAD_SIZE, code(() -> rx.run(v ->
            v.exportRecvBuf(v.allocate(4), 0, id(), null, EnumSet.of(BufFlag.READWRITE), 0))));
        assertEquals(VmmcResult.BAD_ARG, code(() -> rx.run(v ->
            v.exportRecvBuf(v.allocate(4), 4, id(), null, EnumSet.of(BufFlag.READWRITE, BufFlag.READ_ONLY), 0))));
        assertEquals(VmmcResult.NOT_IMPLEMENTED, code(() -> rx.run(v ->
            v.exportRecvBuf(v.allocate(4), 4, id(), null, EnumSet.of(BufFlag.READWRITE), 1))));
        assertEquals(VmmcResult.BAD_SIZE, code(() -> rx.run(v -> v.allocate(0))));
    }

    @Test
    void shouldEnforcePermissionFlags() {
        Pair ro = pair(8, EnumSet.of(BufFlag.READ_ONLY), null);
        Pair wo = pair(8, EnumSet.of(BufFlag.WRITE_ONLY), null);
        MemorySegment m = words(new int[8]);
        assertEquals(VmmcResult.BAD_IBUF_STATE, code(() -> tx.run(v -> v.sendData(m, ro.imp.proxyBuf(), 1))));
        assertEquals(VmmcResult.BAD_IBUF_STATE, code(() -> tx.run(v -> v.getData(m, wo.imp.proxyBuf(), 1))));
        assertEquals(VmmcResult.SUCCESS, code(() -> tx.run(v -> v.getData(m, ro.imp.proxyBuf(), 8))));
        assertEquals(VmmcResult.SUCCESS, code(() -> tx.run(v -> v.sendData(m, wo.imp.proxyBuf(), 8))));
    }

    @Test
    void shouldCheckRedirectionArguments() {
        Pair r = pair(16, EnumSet.of(BufFlag.READWRITE, BufFlag.REDIRECTABLE), null);
        MemorySegment user = Arena.ofAuto().allocate(64, 4);
        assertEquals(VmmcResult.BAD_SIZE, code(() -> rx.run(v -> v.postRedir(r.exp, 0, 0, user))));
        assertEquals(VmmcResult.BAD_ARG, code(() -> rx.run(v -> v.postRedir(r.exp, 0, 4, null))));
        assertEquals(VmmcResult.BAD_ARG, code(() -> rx.run(v -> v.postRedir(r.exp, -1, 4, user))));
        assertEquals(VmmcResult.BAD_ARG, code(() -> rx.run(v -> v.postRedir(r.exp, 14, 4, user))));
        assertEquals(VmmcResult.BAD_ARG, code(() -> rx.run(v -> v.postRedir(r.exp, 0, 16, user.asSlice(0, 60)))));
        assertEquals(VmmcResult.BAD_ALIGNMENT, code(() -> rx.run(v -> v.postRedir(r.exp, 0, 4, user.asSlice(2, 16)))));
        assertEquals(VmmcResult.BAD_ARG, code(() -> tx.run(v -> v.postRedir(r.exp, 0, 4, user))));
        assertEquals(VmmcResult.SUCCESS, code(() -> rx.run(v -> v.postRedir(r.exp, 0, 4, user))));
        rx.run(v -> v.endRedir(r.exp));
        Pair plain = pair(8, EnumSet.of(BufFlag.READWRITE), null);
        assertEquals(VmmcResult.BAD_RBUF_STATE, code(() -> rx.run(v -> v.clearDataEnd(plain.exp))));
        assertEquals(VmmcResult.BAD_RBUF_STATE, code(() -> rx.run(v -> v.dataEnd(plain.exp))));
        assertEquals(VmmcResult.BAD_RBUF_STATE, code(() -> rx.run(v -> v.postRedir(plain.exp, 0, 4, user))));
    }

    @Test
    void shouldImportAsynchronouslyAndReportStatus() throws Exception {
        int id = id();
        VmmcNode n = rx.with(Vmmc::myNode);
        VmmcPid p = rx.with(Vmmc::myPid);
        ImportRequest r = tx.with(v -> v.importRecvBufAsync(n, p, id));
        assertEquals(VmmcResult.IN_PROGRESS, code(() -> tx.run(v -> v.importRecvBufStatus(r))));
        rx.run(v -> v.exportRecvBuf(v.allocate(8), 8, id, null, EnumSet.of(BufFlag.READWRITE), 0));
        await(r::isDone);
        ImportHandle h = tx.with(v -> v.importRecvBufStatus(r));
        assertEquals(8, h.nwords());
        assertEquals(VmmcResult.STATE_HANDLE, code(() -> tx.run(v -> v.importRecvBufStatus(r))));
        assertEquals(VmmcResult.BAD_ASYNC_HANDLE, code(() -> tx.run(v -> v.importRecvBufStatus(null))));
        // a request of another process is not a handle of this one (and stays unreported for its own)
        ImportRequest foreign = rx.with(v -> v.importRecvBufAsync(n, new VmmcPid(0), 1));
        assertEquals(VmmcResult.BAD_ASYNC_HANDLE, code(() -> tx.run(v -> v.importRecvBufStatus(foreign))));
        // a failed import is reported through the status call, once
        await(foreign::isDone);
        assertEquals(VmmcResult.NO_SUCH_PROCESS, code(() -> rx.run(v -> v.importRecvBufStatus(foreign))));
        assertEquals(VmmcResult.STATE_HANDLE, code(() -> rx.run(v -> v.importRecvBufStatus(foreign))));
        assertEquals(VmmcResult.NO_SUCH_PROCESS, code(() -> tx.run(v -> v.importRecvBuf(n, new VmmcPid(999), 1))));
        assertEquals(VmmcResult.BAD_RBUF_STATE, code(() -> tx.run(v -> v.importRecvBuf(n, p, 987654))));
        assertEquals(VmmcResult.NO_SUCH_NODE, code(() -> tx.run(v -> v.importRecvBuf(new VmmcNode(9, "x"), p, 1))));
    }

    @Test
    void shouldFailCleanlyAfterUnexportAndUnimport() throws Exception {
        Pair p = pair(8, EnumSet.of(BufFlag.READWRITE), null);
        VmmcNode n = rx.with(Vmmc::myNode);
        VmmcPid pid = rx.with(Vmmc::myPid);
        assertEquals(VmmcResult.BAD_ARG, code(() -> tx.run(v -> v.unexportRecvBuf(p.exp))));
        assertEquals(VmmcResult.BAD_ARG, code(() -> rx.run(v -> v.unexportRecvBuf(null))));
        assertEquals(VmmcResult.BAD_ARG, code(() -> rx.run(v -> v.unimportRecvBuf(p.imp))));
        assertEquals(VmmcResult.BAD_ARG, code(() -> tx.run(v -> v.unimportRecvBuf(null))));
        rx.run(v -> v.unexportRecvBuf(p.exp));
        assertEquals(VmmcResult.BAD_RBUF_STATE, code(() -> rx.run(v -> v.unexportRecvBuf(p.exp))));
        assertEquals(VmmcResult.BAD_RBUF_STATE, code(() -> tx.run(v -> v.importRecvBuf(n, pid, p.exp.rbufid()))));
        // whatever a stale import does, nothing reaches the unexported buffer
        code(() -> tx.run(v -> v.sendData(words(5), p.imp.proxyBuf(), 1)));
        Thread.sleep(200);
        assertEquals(0, p.buf.getAtIndex(ValueLayout.JAVA_INT, 0));
        tx.run(v -> v.unimportRecvBuf(p.imp));
        assertEquals(VmmcResult.BAD_PROXY_ADDR, code(() -> tx.run(v -> v.sendData(words(5), p.imp.proxyBuf(), 1))));
        assertEquals(VmmcResult.BAD_IBUF_STATE, code(() -> tx.run(v -> v.unimportRecvBuf(p.imp))));
        // the id can be exported again
        rx.run(v -> v.exportRecvBuf(v.allocate(8), 8, p.exp.rbufid(), null, EnumSet.of(BufFlag.READWRITE), 0));
        assertEquals(8, tx.with(v -> v.importRecvBuf(n, pid, p.exp.rbufid())).nwords());
    }

    @Test
    void shouldRunAsyncTransfersInOrder() throws Exception {
        Pair p = pair(64, EnumSet.of(BufFlag.READWRITE), null);
        AsyncHandle last = null;
        for (int k = 1; k <= 50; k++) {
            int val = k;
            last = tx.with(v -> v.sendDataAsync(words(val), p.imp.proxyBuf(), 1));
        }
        AsyncHandle fin = last;
        await(() -> tx.with(v -> v.asyncStatus(fin)) == 0);
        await(() -> p.buf.getAtIndex(ValueLayout.JAVA_INT, 0) == 50);
        MemorySegment got = Arena.ofAuto().allocate(4, 4);
        AsyncHandle g = tx.with(v -> v.getDataAsync(got, p.imp.proxyBuf(), 1));
        await(() -> tx.with(v -> v.asyncStatus(g)) == 0);
        assertEquals(50, got.getAtIndex(ValueLayout.JAVA_INT, 0));
        assertEquals(VmmcResult.BAD_ASYNC_HANDLE.code(), (int) tx.with(v -> v.asyncStatus(null)));
        assertEquals(VmmcResult.BAD_ASYNC_HANDLE.code(), (int) rx.with(v -> v.asyncStatus(g)));
        // a request queued behind one that has not finished is in progress
        CountDownLatch gate = new CountDownLatch(1);
        tx.run(v -> v.async.submit(() -> {
            try {
                gate.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        AsyncHandle queued = tx.with(v -> v.sendDataAsync(words(51), p.imp.proxyBuf(), 1));
        assertEquals(VmmcResult.IN_PROGRESS.code(), (int) tx.with(v -> v.asyncStatus(queued)));
        gate.countDown();
        await(() -> tx.with(v -> v.asyncStatus(queued)) == 0);
    }

    @Test
    void shouldReachConfiguredDestSpaceLimitsAndDirectoryFiles() {
        assertTrue(Files.isDirectory(share.resolve("calls").resolve("procs")));
        assertTrue(rx.with(Vmmc::sessionProcesses).contains("alpha." + rx.with(Vmmc::myPid).value()));
    }
}
