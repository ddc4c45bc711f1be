package io.softcmi.systemtests;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiAddress;
import io.softcmi.cmi.CmiCallbacks;
import io.softcmi.cmi.CmiCapability;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiException;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.CmiVersion;
import io.softcmi.cmi.FlushEpoch;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.RemoteSegmentHandle;
import io.softcmi.cmi.SegFlag;
import io.softcmi.cmi.TraceFacility;
import io.softcmi.cmi.TraceLevel;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.softcmi.systemtests.CmiAssertions.assertCmiError;
import static io.softcmi.systemtests.ContextThread.onFreshThread;
import static io.softcmi.systemtests.ContextThread.runOnFreshThread;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Part of {@link AbstractSingleNodeCmiTest}: {@code cmi_ini} and version negotiation, thread
 * association ({@code ini_th}, {@code fini}, {@code BOUND}, {@code INIT}), {@code cmi_get_error}
 * and tracing callbacks.
 */
abstract class ContextCmiSuite extends SingleNodeCmiSuiteBase {

    // ---- cmi_ini ----

    @Test
    void shouldNegotiateTheLowerOfTheTwoMinorVersions() {
        assertEquals(new CmiVersion(1, 1), ctx.version());
        assertEquals(new CmiVersion(1, 0), versionGrantedFor(new CmiVersion(1, 0)));
        assertEquals(Cmi.LIBRARY_VERSION, versionGrantedFor(new CmiVersion(1, 9)));
    }

    private static CmiVersion versionGrantedFor(CmiVersion requested) {
        return onFreshThread(() -> {
            try (CmiContext c = Cmi.init(requested)) {
                return c.version();
            }
        });
    }

    @Test
    void shouldRejectInitOfAnotherMajorVersion() {
        runOnFreshThread(() -> {
            assertCmiError(CmiError.NOTSUPP, () -> Cmi.init(new CmiVersion(2, 0)));
            assertCmiError(CmiError.NOTSUPP, () -> Cmi.init(new CmiVersion(0, 9)));
            // The failed init left the thread free: a supported version still works.
            try (CmiContext c = Cmi.init(V1_1)) {
                assertNull(Cmi.lastError());
                assertNotNull(c.ctlInfo());
            }
        });
    }

    @Test
    void shouldClearTheLastErrorOnEverySuccessfulCallTheDataPathCallsToo() {
        CmiSegment seg = newSegment(1);
        CmiMapping m = ctx.segAt(seg, java.util.Set.of());
        java.util.List<Runnable> calls = java.util.List.of(ctx::mb, ctx::rmb, ctx::wmb, () -> ctx.atmCas(m, 0, 0, 0), ctx::ctlInfo);
        for (Runnable call : calls) {
            assertCmiError(CmiError.INVAL, () -> ctx.segGet(0, java.util.Set.of())); // sets the thread's last error
            call.run();
            assertNull(Cmi.lastError(), "cmi_get_error after a successful call");
        }
        ctx.segDt(m);
        ctx.segRemove(seg);
    }

    @Test
    void shouldRejectInitOnThreadAlreadyAssociatedWithAContext() {
        assertCmiError(CmiError.BOUND, () -> Cmi.init(V1_1));
        // The thread keeps its association.
        assertNotNull(ctx.ctlInfo());
    }

    @Test
    void shouldFailInitWithNoMemWhenTheMostContextsAreOpen() {
        List<ContextThread> held = new ArrayList<>();
        try {
            CmiException refused = null;
            for (int i = 0; i < 256 && refused == null; i++) {
                try {
                    held.add(ContextThread.open("held-" + i));
                } catch (CmiException e) {
                    refused = e;
                }
            }
            assertNotNull(refused, "some limit on open contexts exists");
            assertEquals(CmiError.NOMEM, refused.error());
            runOnFreshThread(() -> assertCmiError(CmiError.NOMEM, () -> Cmi.init(V1_1)));
            held.remove(held.size() - 1).close();
            runOnFreshThread(() -> {
                try (CmiContext c = Cmi.init(V1_1)) {
                    assertNotNull(c.ctlInfo(), "a context can be opened again once one closed");
                }
            });
        } finally {
            held.forEach(ContextThread::close);
        }
    }

    @Test
    void shouldDescribeTheContext() {
        assertTrue(ctx.capabilities().contains(CmiCapability.EXTENSIBLE_SEGMENTS));
        assertNotNull(ctx.nodeAddress());
        ContextThread other = otherContext();
        assertEquals(ctx.nodeAddress(), other.call(CmiContext::nodeAddress), "contexts of one node name it alike");
        assertEquals(ctx.vendorId(), other.call(CmiContext::vendorId));
        assertEquals(ctx.deviceId(), other.call(CmiContext::deviceId));
    }

    // ---- ini_th / fini ----

    @Test
    void shouldRejectIniThOnThreadAlreadyAssociated() {
        assertCmiError(CmiError.BOUND, ctx::iniTh);
        runOnFreshThread(() -> {
            ctx.iniTh();
            assertNull(Cmi.lastError());
            assertCmiError(CmiError.BOUND, ctx::iniTh);
            ctx.fini();
        });
    }

    @Test
    void shouldRejectIniThOnThreadAssociatedWithAnotherContext() {
        ContextThread other = otherContext();
        other.run(c -> assertCmiError(CmiError.BOUND, ctx::iniTh));
    }

    @Test
    void shouldRejectCallsFromThreadNotAssociated() {
        CmiSegment seg = newSegment(1);
        CmiSegment ext = newSegment(2, SegFlag.EXTENSIBLE);
        CmiMapping m = ctx.segAt(seg, Set.of());
        RemoteSegmentHandle handle = ctx.segExp(seg, Set.of());
        CmiSegment proxy = ctx.segImp(handle);
        CmiToken token = ctx.tokNew(seg, NodeAddress.ANY, EnumSet.of(Access.READ));
        FlushEpoch epoch = ctx.openFb();
        runOnFreshThread(() -> {
            assertCmiError(CmiError.INIT, () -> ctx.cflush(List.of(new CmiAddress(m, 0))));
            assertCmiError(CmiError.INIT, () -> ctx.flushFb(epoch));
            assertCmiError(CmiError.INIT, () -> ctx.closeFb(epoch));
            assertCmiError(CmiError.INIT, () -> ctx.segExp(seg, Set.of()));
            assertCmiError(CmiError.INIT, () -> ctx.rsegDel(handle));
            assertCmiError(CmiError.INIT, () -> ctx.segImp(handle));
            assertCmiError(CmiError.INIT, () -> ctx.tokNew(seg, NodeAddress.ANY, EnumSet.of(Access.READ)));
            assertCmiError(CmiError.INIT, () -> ctx.tokNewRange(seg, 0, page, NodeAddress.ANY, EnumSet.of(Access.READ)));
            assertCmiError(CmiError.INIT, () -> ctx.tokDel(token));
            assertCmiError(CmiError.INIT, () -> ctx.segSetToken(proxy, token));
            assertCmiError(CmiError.INIT, () -> ctx.segCheck(seg, 0, page));
            assertCmiError(CmiError.INIT, () -> ctx.segRecover(seg, 0, page));
            assertCmiError(CmiError.INIT, () -> ctx.segBreak(ext, page));
            assertCmiError(CmiError.INIT, () -> ctx.segInfo(seg));
            assertCmiError(CmiError.INIT, () -> ctx.attrRsegSize(seg));
            assertCmiError(CmiError.INIT, () -> ctx.attrTokenSize(seg));
            assertCmiError(CmiError.INIT, ctx::ctlInfo);
            assertCmiError(CmiError.INIT, () -> ctx.segGet(page, NO_FLAGS));
            assertCmiError(CmiError.INIT, () -> ctx.segFromId(seg.id()));
            assertCmiError(CmiError.INIT, () -> ctx.segAt(seg, Set.of()));
            assertCmiError(CmiError.INIT, () -> ctx.segDt(m));
            assertCmiError(CmiError.INIT, () -> ctx.segStatus(seg));
            assertCmiError(CmiError.INIT, () -> ctx.segRemove(seg));
            assertCmiError(CmiError.INIT, () -> ctx.ctlMemReserve(page));
            assertCmiError(CmiError.INIT, ctx::attrNodeAddrSize);
            assertCmiError(CmiError.INIT, ctx::openFb);
            assertCmiError(CmiError.INIT, ctx::evtGet);
            assertCmiError(CmiError.INIT, () -> ctx.enable(true));
            assertCmiError(CmiError.INIT, ctx::mb);
            assertCmiError(CmiError.INIT, ctx::rmb);
            assertCmiError(CmiError.INIT, ctx::wmb);
            assertCmiError(CmiError.INIT, () -> ctx.atmCas(m, 0, 0, 1));
            assertCmiError(CmiError.INIT, ctx::fini);
        });
        assertEquals(0, m.getLong(0), "the refused atm_cas changed nothing");
        ctx.flushFb(epoch); // the refused calls left the epoch open
        ctx.closeFb(epoch);
        ctx.tokDel(token); // and the token unrevoked
        ctx.rsegDel(handle); // and the handle undeleted
        assertEquals(0, ctx.segStatus(ext).segBrk(), "and the break unmoved");
    }

    @Test
    void shouldRejectCallsOfAContextFromThreadAssociatedWithAnother() {
        ContextThread other = otherContext();
        CmiContext otherCtx = other.context();
        assertCmiError(CmiError.INIT, otherCtx::ctlInfo);
        assertCmiError(CmiError.INIT, () -> otherCtx.segGet(page, NO_FLAGS));
    }

    @Test
    void shouldRejectFiniOfAContextOtherThanTheThreads() {
        ContextThread other = otherContext();
        assertCmiError(CmiError.INVAL, () -> other.context().fini());
        assertNotNull(other.call(CmiContext::ctlInfo), "the other context is untouched");
        assertNotNull(ctx.ctlInfo(), "and so is this thread's association");
    }

    @Test
    void shouldRejectCallsAfterTheThreadFinis() {
        runOnFreshThread(() -> {
            ctx.iniTh();
            assertNotNull(ctx.ctlInfo());
            ctx.fini();
            assertNull(Cmi.lastError());
            assertCmiError(CmiError.INIT, ctx::ctlInfo);
            assertCmiError(CmiError.INIT, ctx::fini);
        });
        assertNotNull(ctx.ctlInfo(), "the context lives on while the test thread is associated");
    }

    @Test
    void shouldKeepContextUntilTheLastThreadFinisThenRejectIniTh() {
        ContextThread owner = otherContext();
        CmiContext shared = owner.context();
        runOnFreshThread(() -> {
            shared.iniTh();
            owner.run(CmiContext::fini); // the thread that made the context leaves first
            CmiSegment seg = shared.segGet(page, NO_FLAGS);
            assertEquals(page, shared.segStatus(seg).segSz(), "the context lives while a thread remains");
            shared.fini(); // the last thread: the context ends
            // Its threads have all left, so a call from any thread meets the association check first.
            assertCmiError(CmiError.INIT, shared::ctlInfo, "the thread that ended the context");
            assertCmiError(CmiError.INIT, () -> shared.segGet(page, NO_FLAGS));
            assertCmiError(CmiError.INIT, shared::fini);
        });
        runOnFreshThread(() -> {
            assertCmiError(CmiError.INVAL, shared::iniTh, "ini_th of an ended context");
            assertCmiError(CmiError.INIT, shared::ctlInfo, "a thread never associated with it");
        });
        assertCmiError(CmiError.INIT, shared::ctlInfo, "a thread associated with another context");
    }

    // ---- cmi_get_error ----

    @Test
    void shouldClearLastErrorAfterASuccessfulCall() {
        assertCmiError(CmiError.INVAL, () -> ctx.segGet(0, NO_FLAGS));
        assertNotNull(ctx.ctlInfo());
        assertNull(Cmi.lastError());
    }

    @Test
    void shouldKeepLastErrorPerThread() {
        assertCmiError(CmiError.INVAL, () -> ctx.segGet(0, NO_FLAGS));
        runOnFreshThread(() -> {
            assertNull(Cmi.lastError(), "another thread has its own last error");
            assertCmiError(CmiError.NOTSUPP, () -> Cmi.init(new CmiVersion(3, 0)));
        });
        assertEquals(CmiError.INVAL, Cmi.lastError());
    }

    // ---- tracing ----

    /** One message a trace callback received. */
    record Traced(boolean alert, TraceFacility facility, TraceLevel level, String message) {
    }

    private static List<Traced> traceWhileWorking(Set<TraceFacility> facilities, TraceLevel level) {
        List<Traced> seen = new CopyOnWriteArrayList<>();
        CmiCallbacks callbacks = new CmiCallbacks((f, l, m) -> seen.add(new Traced(false, f, l, m)),
            (f, l, m) -> seen.add(new Traced(true, f, l, m)), facilities, level);
        try (ContextThread traced = ContextThread.open("traced", callbacks)) {
            traced.run(c -> {
                long page = c.ctlInfo().protUnits();
                CmiSegment seg = c.segGet(page, NO_FLAGS);
                CmiMapping m = c.segAt(seg, Set.of());
                c.enable(true);
                c.atmCas(m, 0, 0, 1);
                c.mb();
                c.evtGet(Duration.ZERO);
                c.segDt(m);
                c.segRemove(seg);
            });
        }
        return List.copyOf(seen);
    }

    @Test
    void shouldTraceOnlyTheRequestedFacilities() {
        List<Traced> seen = traceWhileWorking(EnumSet.of(TraceFacility.SEG), TraceLevel.HIGHEST);
        assertFalse(seen.isEmpty(), "segment calls at the most verbose level are traced");
        for (Traced t : seen) {
            assertEquals(TraceFacility.SEG, t.facility(), () -> "traced " + t);
        }
    }

    @Test
    void shouldTraceOnlyUpToTheRequestedLevel() {
        List<Traced> seen = traceWhileWorking(EnumSet.allOf(TraceFacility.class), TraceLevel.INFO);
        assertFalse(seen.isEmpty(), "init and fini are traced at INFO");
        for (Traced t : seen) {
            assertTrue(TraceLevel.INFO.includes(t.level()), () -> "traced " + t);
            assertEquals(t.level() == TraceLevel.ERROR || t.level() == TraceLevel.WARNING, t.alert(),
                () -> "errors and warnings go to alert, the rest to log: " + t);
        }
        List<Traced> errorsOnly = traceWhileWorking(EnumSet.allOf(TraceFacility.class), TraceLevel.ERROR);
        assertEquals(List.of(), errorsOnly, "nothing failed, so nothing is traced at ERROR");
    }

    @Test
    void shouldTraceNothingWhenNoFacilityIsRequested() {
        // CmiCallbacks: "traceFacilities the facilities to trace; null means none".
        List<Traced> seen = traceWhileWorking(null, TraceLevel.HIGHEST);
        assertEquals(List.of(), seen);
        assertNotEquals(List.of(), traceWhileWorking(EnumSet.of(TraceFacility.INI), TraceLevel.HIGHEST));
    }
}
