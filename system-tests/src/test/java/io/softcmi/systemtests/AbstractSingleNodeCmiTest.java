package io.softcmi.systemtests;

import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiAddress;
import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiEvent;
import io.softcmi.cmi.CmiEventType;
import io.softcmi.cmi.CmiException;
import io.softcmi.cmi.CmiInfo;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.ConnectivityMap;
import io.softcmi.cmi.EventReturn;
import io.softcmi.cmi.FlushEpoch;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.RemoteSegmentHandle;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import static io.softcmi.systemtests.CmiAssertions.assertCmiError;
import static io.softcmi.systemtests.ContextThread.runOnFreshThread;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The CMI of one node, as {@code cmi(7)} and {@code libcmi(3lib)} describe it, on the public API
 * of the Java binding. Subclasses say which node: the embedded default
 * ({@link EmbeddedNodeCmiTest}) or a real {@code cmid} in another process
 * ({@link DaemonNodeCmiTest}); the tests are the same. Every error code the reference lists for
 * these calls is provoked and checked both as {@code CmiException.error()} and as
 * {@code Cmi.lastError()}.
 *
 * <p>The suite is split by topic along its superclasses: {@link ContextCmiSuite} (init, threads,
 * errors, tracing), {@link SegmentCmiSuite} (segments and their lifetime),
 * {@link ExtensibleSegmentCmiSuite}, {@link ReservationCmiSuite}, {@link SharingCmiSuite} (exports, imports and tokens on
 * one node), {@link DirectViewCmiSuite}; this class holds the memory
 * operations, flush epochs, events and the remaining {@code cmi_ctl} and {@code attr_get}
 * commands.
 */
public abstract class AbstractSingleNodeCmiTest extends DirectViewCmiSuite {

    // ---- atm_cas, barriers, cmi_enb, cflush ----

    @Test
    void shouldCompareAndSwapReturningThePreviousValue() {
        CmiMapping m = ctx.segAt(newSegment(1), Set.of());
        m.putLong(8, 5);
        assertEquals(5, ctx.atmCas(m, 8, 5, 7), "success returns cmpval");
        assertEquals(7, m.getLong(8));
        assertEquals(7, ctx.atmCas(m, 8, 5, 9), "failure returns the current value");
        assertEquals(7, m.getLong(8), "and swaps nothing");
    }

    @Test
    void shouldRejectAtmCasOnMisalignedWordOrMappingOfAnotherContext() {
        CmiSegment seg = newSegment(1);
        CmiMapping m = ctx.segAt(seg, Set.of());
        assertCmiError(CmiError.INVAL, () -> ctx.atmCas(m, 4, 0, 1));
        assertCmiError(CmiError.INVAL, () -> ctx.atmCas(m, 1, 0, 1));
        ContextThread other = otherContext();
        CmiMapping others = other.call(c -> c.segAt(c.segFromId(seg.id()), Set.of()));
        assertCmiError(CmiError.INVAL, () -> ctx.atmCas(others, 0, 0, 1));
        assertEquals(0, m.getLong(0));
    }

    @Test
    void shouldRejectAtmCasOnDetachedMapping() {
        CmiMapping m = ctx.segAt(newSegment(1), Set.of());
        ctx.segDt(m);
        assertThrows(IllegalStateException.class, () -> ctx.atmCas(m, 0, 0, 1));
    }

    @Test
    void shouldRunBarriersAndEnableAccess() {
        ctx.enable(true);
        assertNull(Cmi.lastError());
        ctx.mb();
        ctx.rmb();
        ctx.wmb();
        ctx.enable(false);
        assertNull(Cmi.lastError());
    }

    @Test
    void shouldFlushAddressesOfAttachedMappingsOnly() {
        CmiMapping m = ctx.segAt(newSegment(2), Set.of());
        m.putLong(0, 1);
        ctx.cflush(List.of(new CmiAddress(m, 0), new CmiAddress(m, 2 * page - 1)));
        ctx.cflush(List.of());
        assertCmiError(CmiError.INVAL, () -> ctx.cflush(List.of(new CmiAddress(m, 2 * page))));
        assertCmiError(CmiError.INVAL, () -> ctx.cflush(List.of(new CmiAddress(m, -1))));
        ctx.segDt(m);
        assertCmiError(CmiError.INVAL, () -> ctx.cflush(List.of(new CmiAddress(m, 0))));
    }

    // ---- open_fb / flush_fb / close_fb ----

    @Test
    void shouldRejectASecondFlushEpochOnTheSameThread() {
        FlushEpoch epoch = ctx.openFb();
        assertCmiError(CmiError.BOUND, ctx::openFb);
        runOnFreshThread(() -> {
            ctx.iniTh();
            try (FlushEpoch own = ctx.openFb()) {
                own.flush();
            } finally {
                ctx.fini();
            }
        });
        ctx.closeFb(epoch);
        try (FlushEpoch again = ctx.openFb()) {
            ctx.flushFb(again);
        }
    }

    @Test
    void shouldRejectFlushAndCloseOfAClosedEpoch() {
        CmiMapping m = ctx.segAt(newSegment(1), Set.of());
        FlushEpoch epoch = ctx.openFb();
        m.putLong(0, 3);
        ctx.flushFb(epoch);
        epoch.flush();
        ctx.closeFb(epoch);
        assertCmiError(CmiError.INVAL, () -> ctx.flushFb(epoch));
        assertCmiError(CmiError.INVAL, () -> ctx.closeFb(epoch));
        assertCmiError(CmiError.INVAL, () -> ctx.flushFb(null));
        assertEquals(3, m.getLong(0));
    }

    @Test
    void shouldRejectFlushAndCloseOfAnotherThreadsEpoch() {
        FlushEpoch mine = ctx.openFb();
        runOnFreshThread(() -> {
            ctx.iniTh();
            try {
                assertCmiError(CmiError.INVAL, () -> ctx.flushFb(mine));
                assertCmiError(CmiError.INVAL, () -> ctx.closeFb(mine));
            } finally {
                ctx.fini();
            }
        });
        ContextThread other = otherContext();
        other.run(c -> {
            assertCmiError(CmiError.INVAL, () -> c.flushFb(mine));
            assertCmiError(CmiError.INVAL, () -> c.closeFb(mine));
        });
        ctx.closeFb(mine);
    }

    // ---- evt_get / evt_ret, CMI_CTL_NODE_CMAP_GET ----

    @Test
    void shouldReturnNoEventWhenNoneIsPending() {
        assertNull(ctx.evtGet());
        assertNull(ctx.evtGet(Duration.ofMillis(20)));
        assertNull(Cmi.lastError());
    }

    @Test
    void shouldRejectCmapRequestIdZero() {
        assertCmiError(CmiError.INVAL, () -> ctx.ctlNodeCmapGet(0));
    }

    @Test
    void shouldAnswerEachCmapRequestWithOneEventCarryingItsRequestId() {
        ctx.ctlNodeCmapGet(42);
        ctx.ctlNodeCmapGet(43);
        for (long requestId : new long[] {42, 43}) {
            CmiEvent e = ctx.evtGet(Deadline.scaled(Duration.ofSeconds(10)));
            assertNotNull(e, "CMAP event for request " + requestId);
            assertEquals(CmiEventType.CMAP, e.type());
            ConnectivityMap map = assertInstanceOf(ConnectivityMap.class, e);
            assertEquals(requestId, map.requestId());
            assertTrue(map.solicited());
            assertEquals(List.of(), map.disconnected(), "one node: nothing is disconnected");
            ctx.evtRet(e, EventReturn.DONE);
        }
        assertNull(ctx.evtGet(Duration.ofMillis(100)), "one event per request");
    }

    @Test
    void shouldRejectEvtRetOfAnEventThatIsNotOutstanding() {
        assertCmiError(CmiError.INVAL, () -> ctx.evtRet(new ConnectivityMap(7, List.of()), EventReturn.DONE));
        assertCmiError(CmiError.INVAL, () -> ctx.evtRet(null, EventReturn.DONE));
        ctx.ctlNodeCmapGet(7);
        CmiEvent e = ctx.evtGet(Deadline.scaled(Duration.ofSeconds(10)));
        assertNotNull(e);
        assertCmiError(CmiError.INVAL, () -> ctx.evtRet(new ConnectivityMap(7, List.of()), EventReturn.DONE),
            "an equal copy is not the outstanding event");
        ctx.evtRet(e, EventReturn.ERROR);
        assertCmiError(CmiError.INVAL, () -> ctx.evtRet(e, EventReturn.DONE), "already returned");
        ContextThread other = otherContext();
        ctx.ctlNodeCmapGet(8);
        CmiEvent mine = ctx.evtGet(Deadline.scaled(Duration.ofSeconds(10)));
        other.run(c -> assertCmiError(CmiError.INVAL, () -> c.evtRet(mine, EventReturn.DONE),
            "an event of another context"));
        ctx.evtRet(mine, EventReturn.DONE);
    }

    // ---- cmi_ctl ----

    @Test
    void shouldReportConsistentInfo() {
        CmiInfo i = info();
        assertTrue(i.protUnits() > 0 && Long.bitCount(i.protUnits()) == 1, "prot_units " + i.protUnits());
        assertTrue(i.maxMemCfg() > 0);
        assertTrue(i.maxMemAvail() >= 0 && i.maxMemAvail() <= i.maxMemCfg(), i::toString);
        assertTrue(i.maxSegSz() > 0 && i.maxSegSz() <= i.maxMemCfg(), i::toString);
        assertEquals(0, i.maxSegSz() % i.protUnits(), i::toString);
        assertTrue(i.cacheLineSz() > 0, i::toString);
        assertTrue(i.maxRecoSegsz() > 0 && i.maxRecoSegsz() % i.cacheLineSz() == 0, i::toString);
        assertTrue(i.segAllocUnits() > 0 && i.segAlignment() > 0, i::toString);
        assertTrue(i.segLrgpgAlignment() >= i.segAlignment(), i::toString);
        assertTrue(i.curExpSegs() <= i.maxExpSegs() && i.curImpSegs() <= i.maxImpSegs(), i::toString);
        assertTrue(i.maxWriteThroughSegs() >= 0 && i.maxAccStok() <= i.maxAccToks(), i::toString);
    }

    @Test
    void shouldLowerAvailableMemoryBySegmentSize() {
        CmiInfo before = info();
        CmiSegment seg = newSegment(8);
        CmiInfo after = info();
        assertEquals(before.maxMemAvail() - 8 * page, after.maxMemAvail());
        assertEquals(before.maxMemCfg(), after.maxMemCfg());
        ctx.segRemove(seg);
        assertEquals(before.maxMemAvail(), available());
    }

    @Test
    void shouldCountExportedSegments() {
        long before = info().curExpSegs();
        CmiSegment seg = newSegment(1);
        RemoteSegmentHandle h = ctx.segExp(seg, Set.of());
        assertEquals(before + 1, info().curExpSegs());
        assertTrue(ctx.segStatus(seg).exported());
        RemoteSegmentHandle again = ctx.segExp(seg, Set.of());
        assertEquals(before + 1, info().curExpSegs(), "segments are counted, not exports");
        ctx.rsegDel(h);
        ctx.rsegDel(again);
        assertCmiError(CmiError.INVAL, () -> ctx.rsegDel(h), "already deleted");
        ctx.segRemove(seg);
        assertEquals(before, info().curExpSegs(), "a removed segment is no longer exported");
    }

    @Test
    void shouldSetAndGetTheCacheSizeOfASegment() {
        CmiSegment seg = newSegment(1);
        ctx.ctlCacheRsegSet(seg, 1 << 20);
        assertEquals(1 << 20, ctx.ctlCacheRsegGet(seg));
        ctx.ctlCacheRsegSet(CmiSegment.ALL, 2 << 20);
        ctx.ctlCacheRsegSet(seg, 0);
        assertEquals(0, ctx.ctlCacheRsegGet(seg));
    }

    @Test
    void shouldRejectCacheSizeQueryForAllSegments() {
        assertCmiError(CmiError.INVAL, () -> ctx.ctlCacheRsegGet(CmiSegment.ALL));
    }

    @Test
    void shouldRejectInvalidCacheSizeRequests() {
        CmiSegment seg = newSegment(1);
        assertCmiError(CmiError.INVAL, () -> ctx.ctlCacheRsegSet(seg, -1));
        long size = ctx.ctlCacheRsegGet(seg);
        ContextThread other = otherContext();
        other.run(c -> {
            CmiSegment s = c.segFromId(seg.id());
            assertCmiError(CmiError.PERM, () -> c.ctlCacheRsegSet(s, 1 << 20), "only the creator sizes the cache");
            assertEquals(size, c.ctlCacheRsegGet(s), "anyone may ask");
        });
        ctx.segRemove(seg);
        assertCmiError(CmiError.INVAL, () -> ctx.ctlCacheRsegGet(seg), "the segment is gone");
        assertCmiError(CmiError.INVAL, () -> ctx.ctlCacheRsegSet(seg, 1 << 20), "the segment is gone");
    }

    @Test
    void shouldRejectANegativeReconfigurationTimeout() {
        ctx.ctlReconfTimeout(Duration.ofSeconds(5));
        assertCmiError(CmiError.INVAL, () -> ctx.ctlReconfTimeout(Duration.ofMillis(-1)));
        assertCmiError(CmiError.INVAL, () -> ctx.ctlReconfTimeout(Duration.ZERO));
        assertCmiError(CmiError.INVAL, () -> ctx.ctlReconfTimeout(Duration.ofDays(1).plusMillis(1)), "more than a day");
        assertCmiError(CmiError.INVAL, () -> ctx.ctlReconfTimeout(Duration.ofSeconds(Long.MAX_VALUE)), "would overflow");
        ctx.ctlReconfTimeout(Duration.ofDays(1));
    }

    // ---- attr_get, node addresses ----

    @Test
    void shouldReportAttributeSizesEqualToEncodedLengths() {
        CmiSegment seg = newSegment(1);
        assertEquals(ctx.nodeAddress().toBytes().length, ctx.attrNodeAddrSize());
        RemoteSegmentHandle h = ctx.segExp(seg, Set.of());
        assertEquals(h.toBytes().length, ctx.attrRsegSize(seg));
        assertTrue(ctx.attrTokenSize(seg) > 0);
        ctx.rsegDel(h);
        ctx.segRemove(seg);
        assertCmiError(CmiError.INVAL, () -> ctx.attrRsegSize(seg), "the segment is gone");
        assertCmiError(CmiError.INVAL, () -> ctx.attrTokenSize(seg), "the segment is gone");
    }

    @Test
    void shouldEncodeAndDecodeNodeAddresses() {
        NodeAddress a = ctx.nodeAddress();
        NodeAddress copy = NodeAddress.fromBytes(a.toBytes());
        assertEquals(a, copy);
        assertEquals(a.hashCode(), copy.hashCode());
        assertNotEquals(a, NodeAddress.ANY);
        byte[] bytes = a.toBytes();
        bytes[0] ^= 1;
        assertArrayEquals(copy.toBytes(), a.toBytes(), "toBytes returns a copy");
        CmiException e = assertThrows(CmiException.class, () -> NodeAddress.fromBytes(new byte[] {1, 2, 3}));
        assertEquals(CmiError.INVAL, e.error());
    }

    @Test
    void shouldFindWhichNodeAddressesNameTheSameNode() {
        NodeAddress me = ctx.nodeAddress();
        NodeAddress otherContexts = otherContext().call(c -> c.nodeAddress());
        int[] matches = ctx.ctlNodeAddrCmp(me, List.of(NodeAddress.ANY, me, NodeAddress.fromBytes(me.toBytes()),
            otherContexts));
        assertArrayEquals(new int[] {1, 2, 3}, matches);
        assertArrayEquals(new int[] {}, ctx.ctlNodeAddrCmp(me, List.of(NodeAddress.ANY)));
        assertArrayEquals(new int[] {}, ctx.ctlNodeAddrCmp(me, List.of()));
    }

    @Test
    void shouldRejectInvalidNodeAddressesInComparison() {
        NodeAddress bogus = () -> new byte[] {1, 2, 3};
        NodeAddress me = ctx.nodeAddress();
        assertCmiError(CmiError.INVAL, () -> ctx.ctlNodeAddrCmp(bogus, List.of(me)));
        assertCmiError(CmiError.INVAL, () -> ctx.ctlNodeAddrCmp(me, List.of(me, bogus)));
    }
}
