package io.softcmi.smi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * SMI in one process (a job of its own on the embedded CMI node): every call, and each return
 * value of the manual that one process can provoke.
 */
class SmiSingleProcessTest {
    private static Smi smi;

    @BeforeAll
    static void init() {
        smi = Smi.init(new String[0]);
    }

    @AfterAll
    static void finish() {
        smi.close();
        assertError(SmiError.NOINIT, smi::procRank);
        assertError(SmiError.NOINIT, smi::barrier);
        assertError(SmiError.NOINIT, smi::timer);
        assertError(SmiError.NOINIT, smi::timespan);
        assertError(SmiError.NOINIT, smi::ticks);
        assertError(SmiError.NOINIT, smi::wtime);
        assertError(SmiError.NOINIT, () -> smi.debug(false));
        assertEquals(0, smi.query(SmiQuery.SMI_INITIALIZED, 0));
    }

    private static void assertError(SmiError e, Executable call) {
        assertEquals(e, assertThrows(SmiException.class, call).error());
    }

    @Test
    void shouldDescribeAJobOfOneProcess() {
        assertEquals(0, smi.procRank());
        assertEquals(1, smi.procSize());
        assertEquals(1, smi.nodeSize());
        assertEquals(0, smi.localProcRank());
        assertEquals(1, smi.maxLocalProcSize());
        assertEquals(0, smi.procToNode(0));
        assertEquals(0, smi.firstProcOnNode(0));
        assertError(SmiError.PARAM, () -> smi.procToNode(1));
        assertError(SmiError.PARAM, () -> smi.firstProcOnNode(3));
        assertTrue(smi.pageSize() >= 4096);
        assertEquals(smi.pageSize(), smi.query(SmiQuery.SYS_PAGESIZE, 0));
        assertEquals(1, smi.query(SmiQuery.SMI_INITIALIZED, 0));
        assertEquals(1, smi.query(SmiQuery.SCI_NBRADAPTERS, 0));
        assertEquals(0, smi.query(SmiQuery.SCI_CONNECTION_STATE, 0));
        assertTrue(smi.queryString(SmiQuery.SCI_API_VERSION).contains("TCP"));
        assertError(SmiError.PARAM, () -> smi.query(SmiQuery.SCI_API_VERSION, 0));
        assertError(SmiError.PARAM, () -> smi.query(null, 0));
        assertTrue(smi.wtime() > 0);
        assertTrue(smi.timer().getSeconds() > 1_600_000_000L);
        assertTrue(!smi.timespan().isNegative());
        long t0 = smi.ticks();
        assertTrue(smi.ticks() >= t0, "SMI_Get_ticks goes forward");
        smi.barrier();
    }

    @Test
    void shouldRedirectStandardStreamsToFiles(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp) throws Exception {
        assertError(SmiError.PARAM, () -> smi.redirectIo(null, null, IoMode.ASIS, null, IoMode.ASIS, null));
        assertError(SmiError.PARAM, () -> smi.redirectIo(IoMode.FILE, null, IoMode.ASIS, null, IoMode.ASIS, null));
        assertFalse(java.nio.file.Files.exists(java.nio.file.Path.of("null.0")), "a file named after a missing name");
        assertError(SmiError.PARAM, () -> smi.redirectIo(IoMode.ASIS, null, IoMode.ASIS, null, IoMode.FILE,
            tmp.resolve("missing").toString()));
        java.nio.file.Files.writeString(tmp.resolve("in"), "input line\n");
        java.io.InputStream in = System.in;
        java.io.PrintStream err = System.err;
        try {
            smi.redirectIo(IoMode.FILE, tmp.resolve("err").toString(), IoMode.ASIS, null, IoMode.FILE,
                tmp.resolve("in").toString());
            System.err.println("to the file");
            assertEquals("input line", new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine());
        } finally {
            System.err.close();
            System.setIn(in);
            System.setErr(err);
        }
        assertEquals("to the file", java.nio.file.Files.readString(tmp.resolve("err.0")).strip(), "suffix .rank");
    }

    @Test
    void shouldRunOutOfExportSlots() {
        java.util.List<SmiRegion> made = new java.util.ArrayList<>();
        try {
            SmiException e = assertThrows(SmiException.class, () -> {
                for (int i = 0; i < 2000; i++) {
                    made.add(smi.createShreg(RegionType.LOCAL, Smi.initReginfo(4096, 0), Set.of()));
                }
            });
            assertEquals(SmiError.NOSEGMENT, e.error(), e.getMessage());
            assertTrue(made.size() >= 800, "export slots: " + made.size());
        } finally {
            made.forEach(SmiRegion::free);
        }
    }

    @Test
    void shouldRunOutOfProgressCountersAndLoops() throws Exception {
        // The job's tables (64 counters, 32 loops) are never given back; the count is restored
        // afterwards so that the other tests of this job still find room.
        io.softcmi.smi.internal.Parts parts = parts();
        int pcs = nextId(parts.counters(), -1);
        int loops = nextId(parts.loops(), -1);
        java.util.List<SmiLoop> made = new java.util.ArrayList<>();
        try {
            SmiException pcFull = assertThrows(SmiException.class, () -> {
                for (int i = 0; i <= 64; i++) {
                    smi.initPc();
                }
            });
            assertEquals(SmiError.NOMEM, pcFull.error());
            SmiException loopFull = assertThrows(SmiException.class, () -> {
                for (int i = 0; i <= 32; i++) {
                    made.add(smi.loopInit(0, 9, LoopMode.BLOCKED));
                }
            });
            assertEquals(SmiError.NOMEM, loopFull.error());
        } finally {
            made.forEach(SmiLoop::free);
            nextId(parts.counters(), pcs);
            nextId(parts.loops(), loops);
        }
    }

    private static io.softcmi.smi.internal.Parts parts() throws ReflectiveOperationException {
        java.lang.reflect.Field f = Smi.class.getDeclaredField("p");
        f.setAccessible(true);
        return (io.softcmi.smi.internal.Parts) f.get(smi);
    }

    /** @return the table's next id; sets it to {@code value} unless that is negative */
    private static int nextId(Object table, int value) throws ReflectiveOperationException {
        java.lang.reflect.Field f = table.getClass().getDeclaredField("nextId");
        f.setAccessible(true);
        int old = f.getInt(table);
        if (value >= 0) {
            f.setInt(table, value);
        }
        return old;
    }

    @Test
    void shouldOfferInitOnceOnly() {
        assertError(SmiError.OTHER, () -> Smi.init(new String[0]));
    }

    @Test
    void shouldStoreAndLoadEveryTypeInAnUndividedRegion() {
        SmiRegion r = smi.createShreg(RegionType.UNDIVIDED, Smi.initReginfo(100, 0), Set.of());
        assertEquals(smi.pageSize(), r.size(), "size rounded up to the page size");
        r.putByte(1, (byte) 7);
        r.putShort(2, (short) 300);
        r.putInt(4, 70000);
        r.putLong(8, Long.MIN_VALUE);
        r.putFloat(16, 1.5f);
        r.putDouble(24, Math.PI);
        assertEquals(7, r.getByte(1));
        assertEquals(300, r.getShort(2));
        assertEquals(70000, r.getInt(4));
        assertEquals(Long.MIN_VALUE, r.getLong(8));
        assertEquals(1.5f, r.getFloat(16));
        assertEquals(Math.PI, r.getDouble(24));
        assertSame(r, smi.adrToRegion(r.at(8)));
        assertEquals(1, smi.query(SmiQuery.SMI_REGION_CONNECTED, r.id()));
        assertEquals(-1, smi.query(SmiQuery.SMI_REGION_ADPT, r.id()));
        assertError(SmiError.BADADR, () -> r.getLong(r.size()));
        assertError(SmiError.BADADR, () -> r.putLong(-8, 1));
        r.free();
        assertError(SmiError.PARAM, () -> smi.adrToRegion(r.at(0)));
        assertError(SmiError.PARAM, r::free);
        assertError(SmiError.PARAM, () -> r.getLong(0));
    }

    @Test
    void shouldRejectWrongRegionParametersAndFlags() {
        assertError(SmiError.PARAM, () -> Smi.initReginfo(-1, 0));
        assertError(SmiError.PARAM, () -> smi.createShreg(RegionType.BLOCKED, Smi.initReginfo(0, 0), Set.of()));
        assertError(SmiError.PARAM, () -> smi.createShreg(RegionType.UNDIVIDED, Smi.initReginfo(4096, 1), Set.of()));
        assertError(SmiError.PARAM, () -> smi.createShreg(RegionType.BLOCKED, Smi.initReginfo(4096, 0),
            Set.of(RegionFlag.DELAYED)));
        assertError(SmiError.PARAM, () -> smi.createShreg(RegionType.CUSTOMIZED,
            Smi.initReginfo(8192, 0).nbrSgmts(1).sgmtOwner(0).sgmtSize(4096), Set.of()));
        assertError(SmiError.NOTIMPL, () -> smi.createShreg(RegionType.UNDIVIDED, Smi.initReginfo(4096, 0),
            Set.of(RegionFlag.REGISTER)));
        assertError(SmiError.PARAM, () -> smi.createShreg(RegionType.PT2PT, Smi.initReginfo(4096, 0).partner(0),
            Set.of()));
        assertError(SmiError.PARAM, () -> smi.createShreg(RegionType.REMOTE, Smi.initReginfo(0, 0).sgmtId(12345),
            Set.of()));
        assertError(SmiError.NOMEM, () -> smi.createShreg(RegionType.LOCAL, Smi.initReginfo(1L << 60, 0), Set.of()));
        assertError(SmiError.PARAM, () -> smi.createShreg(RegionType.LOCAL, Smi.initReginfo(4096, 0),
            Set.of(RegionFlag.DELAYED)));
        smi.barrier();
    }

    @Test
    void shouldImportALocalRegionAsRemoteAndRdmaBySegmentId() {
        SmiRegion local = smi.createShreg(RegionType.LOCAL, Smi.initReginfo(8192, 0), Set.of());
        local.putLong(4096, 42);
        SmiRegion remote = smi.createShreg(RegionType.REMOTE, Smi.initReginfo(4096, 0).offset(4096).sgmtId(local.sgmtId()),
            Set.of(RegionFlag.DELAYED));
        assertEquals(0, smi.query(SmiQuery.SMI_REGION_CONNECTED, remote.id()));
        remote.connect();
        assertEquals(42, remote.getLong(0), "a window from offset 4096");
        SmiRegion rdma = smi.createShreg(RegionType.RDMA, Smi.initReginfo(0, 0).sgmtId(local.sgmtId()), Set.of());
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(16, 8);
            buf.set(ValueLayout.JAVA_LONG, 0, 99);
            smi.put(rdma, 8, buf);
            assertEquals(99, local.getLong(8));
            MemorySegment back = a.allocate(8, 8);
            smi.get(back, rdma, 4096);
            assertEquals(42, back.get(ValueLayout.JAVA_LONG, 0));
            assertError(SmiError.BADADR, () -> smi.put(rdma, 4, buf));
            assertError(SmiError.PARAM, () -> smi.put(rdma, rdma.size() - 8, buf));
        }
        SmiRegion priv = smi.createShreg(RegionType.LOCAL, Smi.initReginfo(4096, 0), Set.of(RegionFlag.PRIVATE));
        assertError(SmiError.PARAM, priv::sgmtId);
        priv.free();
        rdma.free();
        remote.free();
        local.free();
    }

    @Test
    void shouldReplicateAndShareAgainAndRejectBadCombineModes() {
        SmiRegion r = smi.createShreg(RegionType.UNDIVIDED, Smi.initReginfo(4096, 0), Set.of());
        r.putLong(0, 5);
        assertError(SmiError.PARAM, () -> smi.ensureConsistency(r, Smi.SHR_NOTHING, 0, 0));
        assertError(SmiError.PARAM, () -> smi.switchToReplication(r, 7, 0, 0, 0));
        assertError(SmiError.PARAM, () -> smi.switchToReplication(r, Smi.REP_LOCAL_AND_BEYOND, 3, 0, 0));
        smi.switchToReplication(r, Smi.REP_EVERYTHING, 0, 0, 0);
        smi.switchToReplication(r, Smi.REP_NOTHING, 0, 0, 0);
        assertEquals(5, r.getLong(0), "a second switch has no effect");
        r.putLong(0, 6);
        smi.ensureConsistency(r, Smi.SHR_SINGLE_SOURCE, 0, 0);
        assertError(SmiError.PARAM, () -> smi.switchToSharing(r, Smi.SHR_LOOP_SPLITTING, 0, 0));
        assertError(SmiError.PARAM, () -> smi.switchToSharing(r, Smi.SHR_SINGLE_SOURCE, 3, 0));
        assertError(SmiError.PARAM, () -> smi.switchToSharing(r, Smi.SHR_ADD | Smi.DTYPE_FIXPOINT, 2000, 0));
        r.putInt(0, 40);
        smi.switchToSharing(r, Smi.SHR_ADD | Smi.DTYPE_FIXPOINT, 1, 0);
        assertEquals(40, r.getInt(0));
        r.free();
        assertError(SmiError.PARAM, () -> smi.switchToReplication(r, Smi.REP_EVERYTHING, 0, 0, 0));
    }

    @Test
    void shouldAllocateFreeAndCoalesceInARegion() {
        SmiRegion r = smi.createShreg(RegionType.UNDIVIDED, Smi.initReginfo(4096 + 65536, 0), Set.of());
        assertError(SmiError.PARAM, () -> r.imalloc(8));
        r.initMmu();
        assertError(SmiError.PARAM, r::initMmu);
        java.util.List<SmiAddress> got = new java.util.ArrayList<>();
        for (int i = 0; i < 100; i++) {
            SmiAddress a = r.imalloc(100 + i);
            a.region().putLong(a.offset(), i);
            got.add(a);
        }
        for (int i = 0; i < 100; i++) {
            assertEquals(i, r.getLong(got.get(i).offset()), "blocks do not overlap");
        }
        assertError(SmiError.NOMEM, () -> r.imalloc(65536));
        for (SmiAddress a : got) {
            r.ifree(a);
        }
        assertError(SmiError.PARAM, () -> r.ifree(got.get(0)));
        assertError(SmiError.PARAM, () -> r.ifree(r.at(7)));
        SmiAddress whole = r.imalloc(65536 - 16);
        r.ifree(whole);
        SmiAddress c = r.cmalloc(1000);
        r.cfree(c);
        assertError(SmiError.PARAM, () -> r.imalloc(0));
        r.free();
        SmiRegion local = smi.createShreg(RegionType.LOCAL, Smi.initReginfo(8192, 0), Set.of());
        local.initMmu();
        local.ifree(local.imalloc(64));
        assertError(SmiError.PARAM, () -> local.cmalloc(64));
        SmiRegion tiny = smi.createShreg(RegionType.LOCAL, Smi.initReginfo(4096, 0), Set.of());
        assertError(SmiError.NOMEM, tiny::initMmu);
        tiny.free();
        local.free();
    }

    @Test
    void shouldScheduleEveryIterationOnceInEveryModeAndRejectBadLoops() {
        assertEquals(1.0, smi.evaluateSpeed()[0]);
        for (LoopMode mode : LoopMode.values()) {
            SmiLoop loop = smi.loopInit(-5, 94, mode);
            if (mode == LoopMode.BLOCKED) {
                loop.useEvaluatedSpeed();
            }
            loop.setParam(SmiLoop.NO_CHANGE, 3, SmiLoop.NO_CHANGE, 7, SmiLoop.NO_CHANGE);
            loop.setHelpParam(SmiLoop.HELP_ONLY_SMP);
            for (int run = 0; run < 2; run++) {
                int[] seen = new int[100];
                Iterations it;
                int chunks = 0;
                do {
                    it = loop.getIterations();
                    for (int i = it.low(); i <= it.high(); i++) {
                        seen[i + 5]++;
                    }
                    chunks++;
                } while (it.status() != LoopStatus.READY);
                for (int c : seen) {
                    assertEquals(1, c, mode + ": every iteration exactly once");
                }
                assertTrue(mode == LoopMode.TIMED_BLOCKED || chunks > 100 / 7, mode + ": chunks of at most 7");
            }
            assertError(SmiError.PARAM, () -> loop.setParam(-1, 0, 0, 0, 0));
            assertError(SmiError.PARAM, () -> loop.setHelpParam(-7));
            loop.free();
            assertError(SmiError.PARAM, loop::getIterations);
        }
        assertError(SmiError.PARAM, () -> smi.loopInit(5, 4, LoopMode.CYCLIC));
        assertError(SmiError.OTHER, () -> smi.loopInit(0, 4, null));
    }

    @Test
    void shouldCopySynchronouslyAndAsynchronously() {
        SmiRegion a = smi.createShreg(RegionType.BLOCKED, Smi.initReginfo(3 * 4096, 0), Set.of());
        SmiRegion b = smi.createShreg(RegionType.FRAGMENTED, Smi.initReginfo(3 * 4096, 0), Set.of());
        byte[] data = new byte[10000];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 7);
        }
        smi.memcpy(a.at(100), MemorySegment.ofArray(data), data.length, Set.of());
        smi.memcpy(b.at(5), a.at(100), data.length, EnumSet.of(MemcpyFlag.NOBARRIER));
        byte[] back = new byte[data.length];
        smi.memcpy(MemorySegment.ofArray(back), b.at(5), back.length, Set.of());
        assertArrayEquals(data, back);
        assertError(SmiError.PARAM, () -> smi.memcpy(a.at(0), MemorySegment.ofArray(new byte[] {1}), 1,
            EnumSet.of(MemcpyFlag.ENQUEUE))); // a synchronous copy cannot be queued
        MemcpyHandle queued = smi.imemcpy(a.at(0), MemorySegment.ofArray(new byte[] {1, 2, 3}), 3,
            EnumSet.of(MemcpyFlag.ENQUEUE));
        assertEquals(SmiError.NOTPOSTED, smi.memtest(queued));
        SmiException notAll = assertThrows(SmiException.class, () -> smi.memtestAll(queued));
        assertEquals(SmiError.OTHER, notAll.error());
        assertEquals(java.util.List.of(SmiError.NOTPOSTED), notAll.statuses());
        MemcpyHandle h = smi.imemcpy(MemorySegment.ofArray(back), b.at(5), back.length, Set.of());
        smi.memwaitAll(queued, h);
        assertEquals(SmiError.SUCCESS, smi.memtest(h));
        assertArrayEquals(new SmiError[] {SmiError.SUCCESS, SmiError.SUCCESS}, smi.memtestAll(queued, h));
        MemcpyHandle foreign = () -> 0;
        assertError(SmiError.PARAM, () -> smi.memtestAll(h, foreign));
        SmiException oneFailed = assertThrows(SmiException.class, () -> smi.memwaitAll(h, foreign));
        assertEquals(SmiError.OTHER, oneFailed.error());
        assertEquals(java.util.List.of(SmiError.SUCCESS, SmiError.PARAM), oneFailed.statuses());
        // PENDING: a small copy queued behind a large one on the copy thread, tested at once
        SmiRegion wide = smi.createShreg(RegionType.LOCAL, Smi.initReginfo(4 << 20, 0), Set.of());
        MemorySegment big = Arena.ofAuto().allocate(4 << 20);
        boolean pending = false;
        for (int attempt = 0; attempt < 20 && !pending; attempt++) {
            MemcpyHandle first = smi.imemcpy(wide.at(0), big, big.byteSize(), Set.of());
            MemcpyHandle last = smi.imemcpy(MemorySegment.ofArray(new byte[8]), wide.at(0), 8, Set.of());
            pending = smi.memtest(last) == SmiError.PENDING;
            smi.memwaitAll(first, last);
        }
        wide.free();
        assertTrue(pending, "no copy was seen pending");
        assertEquals(3, a.getByte(2));
        assertError(SmiError.BADADR, () -> smi.memcpy(a.at(a.size() - 2), b.at(0), 4, Set.of()));
        assertError(SmiError.PARAM, () -> smi.memwait(new MemcpyHandle() {
            @Override
            public long size() {
                return 0;
            }
        }));
        smi.checkTransfer(Set.of());
        smi.checkTransfer(EnumSet.of(CheckFlag.NOFLUSH, CheckFlag.NOBARRIER));
        b.free();
        a.free();
    }

    @Test
    void shouldPassSmallMessagesToItselfAndRefuseAPendingOne() {
        byte[] msg = "hello, self".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        smi.isend(msg, msg.length, 0);
        assertError(SmiError.PENDING, () -> smi.isend(msg, msg.length, 0));
        byte[] got = new byte[msg.length];
        smi.recv(got, got.length, 0);
        assertArrayEquals(msg, got);
        smi.sendWait(0);
        assertError(SmiError.PARAM, () -> smi.send(new byte[57], 57, 0));
        assertError(SmiError.PARAM, () -> smi.recv(got, 57, 0));
        assertError(SmiError.PARAM, () -> smi.send(msg, 1, 4));
        byte[] r = new byte[4];
        smi.sendrecv(new byte[] {9, 8, 7, 6}, r, 4, 0);
        assertArrayEquals(new byte[] {9, 8, 7, 6}, r);
    }

    @Test
    void shouldLockSignalAndCountInOneProcess() {
        SmiMutex m = smi.mutexInit();
        m.lock();
        assertEquals(false, m.trylock());
        assertError(SmiError.PARAM, m::lock);
        m.unlock();
        assertError(SmiError.PARAM, m::unlock);
        assertTrue(m.trylock());
        m.unlock();
        m.destroy();
        assertError(SmiError.PARAM, m::lock);
        ProgressCounter pc = smi.initPc();
        pc.increment(3);
        assertEquals(3, pc.get(0));
        pc.waitIndividual(0, ProgressCounter.OWN_PC);
        pc.waitCollective(2);
        assertError(SmiError.PARAM, () -> pc.increment(-1));
        assertError(SmiError.PARAM, () -> pc.get(2));
        pc.reset();
        assertEquals(0, pc.get(0));
        smi.signalSend(0);
        smi.signalWait(Smi.SIGNAL_ANY);
        smi.signalSend(Smi.SIGNAL_BCAST);
        assertError(SmiError.PARAM, () -> smi.signalSend(5));
        assertError(SmiError.PARAM, () -> smi.signalWait(5));
        assertError(SmiError.PARAM, () -> smi.signalSetCallback(0, null));
        assertError(SmiError.PARAM, () -> smi.watchdog(0));
        assertError(SmiError.PARAM, () -> smi.watchdogCallback(null));
        smi.watchdog(60);
        smi.watchdog(Smi.WATCHDOG_DISABLE);
        smi.watchdog(30);
    }
}
