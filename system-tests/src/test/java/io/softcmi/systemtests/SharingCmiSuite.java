package io.softcmi.systemtests;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.CmiVersion;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.RemoteSegmentHandle;
import io.softcmi.cmi.SegState;
import io.softcmi.cmi.internal.NodeAddressImpl;
import io.softcmi.cmi.internal.RemoteSegmentHandleImpl;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static io.softcmi.systemtests.CmiAssertions.assertCmiError;
import static io.softcmi.systemtests.ContextThread.runOnFreshThread;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Part of {@link AbstractSingleNodeCmiTest}: the sharing calls on one node ({@code seg_exp},
 * {@code seg_imp} on the home node itself, which gives a proxy, {@code tok_new}/{@code tok_newva})
 * and the control calls about imports and recovery ({@code CMI_SEG_RM} of a proxy,
 * {@code CMI_SEG_CHECK}/{@code CMI_SEG_RECO}, {@code CMI_CTL_CACHE_RSEG_SET}/{@code _GET} of a
 * proxy): their error conditions. Cross-node behaviour is in the {@code CrossNode*} tests.
 */
abstract class SharingCmiSuite extends ReservationCmiSuite {
    private static final Set<Access> RW = EnumSet.of(Access.READ, Access.WRITE);

    /** A handle naming {@code seg} as an export would, though it need not have been exported. */
    private RemoteSegmentHandle forgedHandle(CmiSegment seg) {
        return new RemoteSegmentHandleImpl((NodeAddressImpl) ctx.nodeAddress(), seg.id(), seg.id(), 1, seg.size(), 0,
            false);
    }

    /** @return a proxy of a new exported segment of the test context, imported by it on this (its home) node */
    private CmiSegment importOwn() {
        CmiSegment seg = newSegment(1);
        return ctx.segImp(ctx.segExp(seg, Set.of()));
    }

    // ---- seg_imp ----

    @Test
    void shouldRejectImportOfASegmentThatWasNeverExportedWithPerm() {
        CmiSegment seg = newSegment(1);
        RemoteSegmentHandle forged = forgedHandle(seg);
        assertCmiError(CmiError.PERM, () -> ctx.segImp(forged), "the segment was never exported");
        ctx.segExp(seg, Set.of());
        CmiSegment proxy = ctx.segImp(forged);
        assertTrue(proxy.imported(), "once exported, a handle naming the segment imports");
        ctx.segRemove(proxy);
    }

    // ---- seg_ctl(CMI_SEG_RM) of a proxy ----

    @Test
    void shouldRejectRemovalOfAProxyByAContextThatDidNotImportItWithPerm() {
        CmiSegment proxy = importOwn();
        ContextThread other = otherContext();
        other.run(c -> assertCmiError(CmiError.PERM, () -> c.segRemove(c.segFromId(proxy.id()))));
        assertEquals(SegState.ACTIVE, ctx.segStatus(proxy).state());
        ctx.segRemove(proxy);
        assertCmiError(CmiError.INVAL, () -> ctx.segFromId(proxy.id()), "removed with nothing attached: reclaimed");
    }

    // ---- seg_ctl(CMI_SEG_CHECK / CMI_SEG_RECO) ----

    @Test
    void shouldCheckAndRecoverWholeLinesOfTheCreatorsOwnSegmentsOnly() {
        CmiSegment seg = newSegment(2);
        long line = info().cacheLineSz();
        assertEquals(Optional.empty(), ctx.segCheck(seg, 0, 2 * page), "nothing is in flux");
        ctx.segRecover(seg, 0, 2 * page);
        assertEquals(Optional.empty(), ctx.segCheck(seg, line, line));

        for (long[] range : new long[][] {{-line, line}, {1, line}, {0, 0}, {0, -line}, {0, line + 1},
                {0, 2 * page + line}, {2 * page, line}, {Long.MAX_VALUE - line + 1, line}}) {
            String what = "range " + range[0] + "+" + range[1];
            assertCmiError(CmiError.INVAL, () -> ctx.segCheck(seg, range[0], range[1]), what);
            assertCmiError(CmiError.INVAL, () -> ctx.segRecover(seg, range[0], range[1]), what);
        }
        long most = info().maxRecoSegsz();
        if (info().maxSegSz() > most) { // a node whose segments may be larger than one call's range (the embedded one here)
            CmiSegment large = newSegment(most / page + 1);
            assertEquals(Optional.empty(), ctx.segCheck(large, page, most), "max_reco_segsz in one call");
            assertCmiError(CmiError.INVAL, () -> ctx.segCheck(large, 0, most + page), "more than max_reco_segsz");
            assertCmiError(CmiError.INVAL, () -> ctx.segRecover(large, 0, most + page), "more than max_reco_segsz");
            ctx.segRemove(large);
        }
        ContextThread other = otherContext();
        other.run(c -> {
            CmiSegment s = c.segFromId(seg.id());
            assertCmiError(CmiError.PERM, () -> c.segCheck(s, 0, page), "not the creator");
            assertCmiError(CmiError.PERM, () -> c.segRecover(s, 0, page), "not the creator");
        });
        CmiSegment proxy = importOwn();
        assertCmiError(CmiError.INVAL, () -> ctx.segCheck(proxy, 0, page), "recovery is at the home, not of an import");
        assertCmiError(CmiError.INVAL, () -> ctx.segRecover(proxy, 0, page), "recovery is at the home, not of an import");
        ctx.segRemove(proxy);
    }

    // ---- CMI_CTL_CACHE_RSEG_SET / _GET of a proxy ----

    @Test
    void shouldSizeTheCacheOfAnImportForItsImporterOnly() {
        CmiSegment proxy = importOwn();
        ctx.ctlCacheRsegSet(proxy, 1 << 20);
        assertEquals(1 << 20, ctx.ctlCacheRsegGet(proxy));
        assertCmiError(CmiError.INVAL, () -> ctx.ctlCacheRsegSet(proxy, -1));
        ContextThread other = otherContext();
        other.run(c -> {
            CmiSegment p = c.segFromId(proxy.id());
            assertCmiError(CmiError.PERM, () -> c.ctlCacheRsegSet(p, 2 << 20), "only the importer sizes the cache");
            assertEquals(1 << 20, c.ctlCacheRsegGet(p), "anyone may ask");
        });
        ctx.segRemove(proxy);
    }

    // ---- tok_new / tok_newva ----

    @Test
    void shouldFailTokNewWithNoMemBeyondTheTokensOfASegment() {
        int perSegment = (int) info().maxAccStok();
        assertTrue(perSegment > 0 && perSegment <= 1024, "max_acc_stok " + perSegment + " is cheap to reach");
        CmiSegment seg = newSegment(1);
        List<CmiToken> tokens = new ArrayList<>(perSegment);
        for (int i = 0; i < perSegment; i++) {
            tokens.add(ctx.tokNew(seg, NodeAddress.ANY, RW)); // ANY tokens never collide (BOUND)
        }
        assertCmiError(CmiError.NOMEM, () -> ctx.tokNew(seg, NodeAddress.ANY, RW));
        assertCmiError(CmiError.NOMEM, () -> ctx.tokNewRange(seg, 0, page, NodeAddress.ANY, RW));
        assertNotNull(ctx.tokNew(newSegment(1), NodeAddress.ANY, RW), "the limit is per segment");
        ctx.tokDel(tokens.getFirst());
        assertNotNull(ctx.tokNew(seg, NodeAddress.ANY, RW), "a revoked token frees its place");
        ctx.segRemove(seg); // its tokens go with the mark
    }

    @Test
    void shouldRejectATokenRangeBeyondTheSegmentEvenWhereOffsetPlusSizeOverflows() {
        CmiSegment seg = newSegment(2);
        assertCmiError(CmiError.INVAL, () -> ctx.tokNewRange(seg, page, 2 * page, NodeAddress.ANY, RW));
        assertCmiError(CmiError.INVAL, () -> ctx.tokNewRange(seg, Long.MAX_VALUE - page + 1, page, NodeAddress.ANY, RW));
        assertNotNull(ctx.tokNewRange(seg, page, page, NodeAddress.ANY, RW));
    }

    @Test
    void shouldRejectTokNewvaInAContextThatNegotiatedVersion10WithNotsupp() {
        runOnFreshThread(() -> {
            try (CmiContext old = Cmi.init(new CmiVersion(1, 0))) {
                assertEquals(new CmiVersion(1, 0), old.version());
                CmiSegment seg = old.segGet(page, NO_FLAGS);
                assertCmiError(CmiError.NOTSUPP, () -> old.tokNewRange(seg, 0, page, NodeAddress.ANY, RW),
                    "tok_newva is CMI API 1.1");
                assertNotNull(old.tokNew(seg, NodeAddress.ANY, RW), "tok_new is 1.0");
                old.segRemove(seg);
            }
        });
    }
}
