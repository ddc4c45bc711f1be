package io.softcmi.systemtests;

import io.softcmi.cmi.CmiAccessError;
import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.ExportAttr;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.RemoteSegmentHandle;
import io.softcmi.cmi.direct.DirectViews;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import static io.softcmi.systemtests.CmiAssertions.assertAccessError;
import static io.softcmi.systemtests.CmiAssertions.assertCmiError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Export and import across nodes (issue 3, "Export and import", "Nodes and trust"; cmi(7) "CMI
 * Segment", "Segment Lifetime"): handles stay valid after {@code rseg_del}, cached and uncached
 * imports of one segment exclude each other, an import on the home node is a new proxy that needs
 * a token, remote access after the home marks ({@code TOKEN}) and reclaims ({@code SINVAL}) the
 * segment, handles that name no reachable segment, node addresses, and that an import has no
 * direct view ({@code DirectViews}).
 */
class CrossNodeImportTest extends CrossNodeContextTestBase {
    @RegisterExtension
    static final SystemTestResources RESOURCES = SystemTestResources.perClass();

    private static List<NodeProcess> nodes;

    @BeforeAll
    @Timeout(90)
    static void startCluster() throws IOException {
        nodes = startCluster(RESOURCES);
    }

    @Override
    protected List<NodeProcess> nodes() {
        return nodes;
    }

    @Test
    void shouldKeepHandlesValidAfterRsegDelAndAllowSeveralExports() {
        Shared s = share(1);
        byte[] second = onA.call(c -> c.segExp(s.segment(), Set.of()).toBytes());
        onA.run(c -> {
            s.local().putLong(0, 55);
            c.rsegDel(RemoteSegmentHandle.fromBytes(s.handle()));
            assertCmiError(CmiError.INVAL, () -> c.rsegDel(RemoteSegmentHandle.fromBytes(s.handle())));
        });
        byte[] token = token(s, null, RW);
        Imported viaFirst = importAndAttach(onB, s.handle(), token);
        Imported viaSecond = importAndAttach(onC, second, token);
        onB.run(c -> assertEquals(55, viaFirst.mapping().getLong(0)));
        onC.run(c -> assertEquals(55, viaSecond.mapping().getLong(0)));
    }

    @Test
    void shouldRefuseACachedAndAWriteThroughImportOfOneSegmentAtTheSameTimeWithInval() {
        Shared s = share(1);
        byte[] writeThrough = onA.call(c -> c.segExp(s.segment(), EnumSet.of(ExportAttr.WRITE_THROUGH)).toBytes());
        CmiSegment cachedOnB = importOnly(onB, s.handle());
        onC.run(c -> assertCmiError(CmiError.INVAL, () -> c.segImp(RemoteSegmentHandle.fromBytes(writeThrough))));
        onB.run(c -> assertCmiError(CmiError.INVAL, () -> c.segImp(RemoteSegmentHandle.fromBytes(writeThrough))));
        CmiSegment cachedOnC = importOnly(onC, s.handle()); // two cached imports are fine

        // Once the cached imports are gone, an uncached one is accepted (the home learns it shortly).
        onB.run(c -> c.segRemove(cachedOnB));
        onC.run(c -> c.segRemove(cachedOnC));
        Deadline deadline = Deadline.in(java.time.Duration.ofSeconds(10));
        CmiSegment uncached = onC.call(c -> {
            while (true) {
                try {
                    return c.segImp(RemoteSegmentHandle.fromBytes(writeThrough));
                } catch (io.softcmi.cmi.CmiException e) {
                    if (e.error() != CmiError.INVAL || deadline.expired()) {
                        throw e;
                    }
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError(e);
                }
            }
        });
        byte[] token = token(s, onC, RW);
        onC.run(c -> {
            c.segSetToken(uncached, CmiToken.fromBytes(token));
            CmiMapping m = c.segAt(uncached, Set.of());
            c.enable(true);
            m.putLong(8, 12);
            c.wmb(); // the import is cached: the release writes the store back
        });
        onA.run(c -> assertEquals(12, s.local().getLong(8)));
        onB.run(c -> assertCmiError(CmiError.INVAL, () -> c.segImp(RemoteSegmentHandle.fromBytes(s.handle()))));
    }

    @Test
    void shouldGiveTheHomeNodeANewProxyThatNeedsAToken() {
        Shared s = share(1);
        onA.run(c -> s.local().putLong(0, 66));
        byte[] forA = token(s, onA, RW);
        byte[] forB = token(s, onB, RW);
        byte[] nodeA = addressOf(onA);
        onA.run(c -> {
            CmiSegment proxy = c.segImp(RemoteSegmentHandle.fromBytes(s.handle()));
            assertNotEquals(s.segment().id(), proxy.id(), "a new segment id");
            assertTrue(proxy.imported());
            assertFalse(s.segment().imported());
            assertEquals(NodeAddress.fromBytes(nodeA), proxy.home());
            CmiMapping m = c.segAt(proxy, Set.of());
            c.enable(true);
            assertAccessError(CmiAccessError.TOKEN, proxy.id(), 0, () -> m.getLong(0));
            assertCmiError(CmiError.PERM, () -> c.segSetToken(proxy, CmiToken.fromBytes(forB)));
            c.segSetToken(proxy, CmiToken.fromBytes(forA));
            assertEquals(66, m.getLong(0));
            m.putLong(8, 67);
            c.wmb(); // the import is cached: the release writes the store back
            assertEquals(67, s.local().getLong(8));
        });
    }

    @Test
    void shouldFailRemoteAccessWithTokenOnceTheHomeMarksTheSegmentAndWithSinvalOnceItIsReclaimed() {
        Shared s = share(1);
        Imported i = importAndAttach(onB, s.handle(), token(s, onB, RW));
        long id = i.proxy().id();
        onB.run(c -> {
            i.mapping().putLong(0, 1);
            c.wmb(); // the import is cached: the release writes the store back
        });

        onA.run(c -> c.segRemove(s.segment())); // the creator keeps it attached: marked, not reclaimed
        onB.run(c -> {
            c.rmb(); // a cached import meets the mark at its next acquire, miss or write-back
            assertAccessError(CmiAccessError.TOKEN, id, 0, () -> i.mapping().getLong(0));
            assertAccessError(CmiAccessError.TOKEN, id, 8, () -> i.mapping().putLong(8, 2));
        });
        onA.run(c -> {
            assertEquals(1, s.local().getLong(0), "local access goes on after the mark");
            s.local().putLong(16, 3);
            assertEquals(3, s.local().getLong(16));
            assertCmiError(CmiError.INVAL, () -> c.segExp(s.segment(), Set.of()));
            assertCmiError(CmiError.INVAL, () -> c.tokNew(s.segment(), NodeAddress.ANY, RW));
        });
        onC.run(c -> assertCmiError(CmiError.INVAL, () -> c.segImp(RemoteSegmentHandle.fromBytes(s.handle()))));

        onA.run(c -> c.segDt(s.local())); // the last attach goes: reclaimed
        onB.run(c -> {
            c.rmb();
            assertAccessError(CmiAccessError.SINVAL, id, 0, () -> i.mapping().getLong(0));
            assertAccessError(CmiAccessError.SINVAL, id, 8, () -> i.mapping().putLong(8, 2));
        });
        onC.run(c -> assertCmiError(CmiError.INVAL, () -> c.segImp(RemoteSegmentHandle.fromBytes(s.handle()))));
    }

    @Test
    void shouldRejectImportOfHandlesThatNameNoSegmentWithInval() throws IOException {
        Shared s = share(1);
        io.softcmi.cmi.internal.RemoteSegmentHandleImpl h =
            (io.softcmi.cmi.internal.RemoteSegmentHandleImpl) RemoteSegmentHandle.fromBytes(s.handle());
        byte[] noSuchSegment = new io.softcmi.cmi.internal.RemoteSegmentHandleImpl(h.home(), h.segmentId() + 1000,
            h.generation() + 1000, h.exportId(), h.size(), h.segFlags(), h.writeThrough()).toBytes();
        int deadPort;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0)) {
            deadPort = probe.getLocalPort();
        }
        io.softcmi.cmi.internal.NodeAddressImpl home = h.home();
        byte[] nobodyListens = new io.softcmi.cmi.internal.RemoteSegmentHandleImpl(
            new io.softcmi.cmi.internal.NodeAddressImpl(home.nodeId(), home.host(), deadPort), h.segmentId(),
            h.generation(), h.exportId(), h.size(), h.segFlags(), h.writeThrough()).toBytes();
        onB.run(c -> {
            assertCmiError(CmiError.INVAL, () -> c.segImp(RemoteSegmentHandle.fromBytes(noSuchSegment)));
            assertCmiError(CmiError.INVAL, () -> c.segImp(RemoteSegmentHandle.fromBytes(nobodyListens)));
            // The context keeps working.
            assertTrue(c.segImp(RemoteSegmentHandle.fromBytes(s.handle())).imported());
        });
        // A segment removed at its home (nobody attached: reclaimed at once) cannot be imported.
        Shared gone = onA.call(c -> {
            CmiSegment seg = c.segGet(PAGE, Set.of());
            byte[] handle = c.segExp(seg, Set.of()).toBytes();
            c.segRemove(seg);
            return new Shared(seg, null, handle);
        });
        onB.run(c -> assertCmiError(CmiError.INVAL, () -> c.segImp(RemoteSegmentHandle.fromBytes(gone.handle()))));
    }

    @Test
    void shouldRejectImportOfAHandleWhoseHostDoesNotResolveWithInvalAndKeepTheContext() {
        Shared s = share(1);
        io.softcmi.cmi.internal.RemoteSegmentHandleImpl h =
            (io.softcmi.cmi.internal.RemoteSegmentHandleImpl) RemoteSegmentHandle.fromBytes(s.handle());
        byte[] unresolvable = new io.softcmi.cmi.internal.RemoteSegmentHandleImpl(
            new io.softcmi.cmi.internal.NodeAddressImpl(h.home().nodeId(), "no-such-host.invalid", h.home().port()),
            h.segmentId(), h.generation(), h.exportId(), h.size(), h.segFlags(), h.writeThrough()).toBytes();
        onB.run(c -> {
            assertCmiError(CmiError.INVAL, () -> c.segImp(RemoteSegmentHandle.fromBytes(unresolvable)));
            assertTrue(c.segImp(RemoteSegmentHandle.fromBytes(s.handle())).imported(), "the context keeps working");
        });
    }

    @Test
    void shouldRefuseADirectViewOfAnImportWithInval() {
        Shared cached = share(1);
        Shared writeThrough = share(1, EnumSet.of(ExportAttr.WRITE_THROUGH));
        Imported viaCache = importAndAttach(onB, cached.handle(), token(cached, onB, RW));
        Imported direct = importAndAttach(onC, writeThrough.handle(), token(writeThrough, onC, RW));
        onB.run(c -> {
            var e = assertCmiError(CmiError.INVAL, () -> DirectViews.view(viaCache.mapping()));
            assertTrue(e.getMessage().contains("imported"), e.getMessage());
            viaCache.mapping().putLong(0, 1); // the import itself still works
        });
        onC.run(c -> assertCmiError(CmiError.INVAL, () -> DirectViews.view(direct.mapping())));
    }

    // ---- node addresses ----

    @Test
    void shouldNameEachNodeWithItsOwnAddress() {
        byte[] a = addressOf(onA);
        byte[] b = addressOf(onB);
        byte[] c = addressOf(onC);
        assertFalse(Arrays.equals(a, b));
        assertFalse(Arrays.equals(b, c));
        ContextThread otherOnB = open(nodeB());
        assertArrayEquals(b, addressOf(otherOnB), "every process of a node has the node's address");
        onB.run(ctx -> {
            assertEquals(b.length, ctx.attrNodeAddrSize());
            NodeAddress nb = NodeAddress.fromBytes(b);
            assertEquals(ctx.nodeAddress(), nb);
            assertEquals(ctx.nodeAddress().hashCode(), nb.hashCode());
            assertNotEquals(NodeAddress.ANY, nb);
            List<NodeAddress> candidates = List.of(NodeAddress.fromBytes(a), nb, NodeAddress.fromBytes(c),
                NodeAddress.fromBytes(b), NodeAddress.ANY);
            assertArrayEquals(new int[] {1, 3}, ctx.ctlNodeAddrCmp(nb, candidates));
            assertArrayEquals(new int[] {4}, ctx.ctlNodeAddrCmp(NodeAddress.ANY, candidates));
            assertArrayEquals(new int[0], ctx.ctlNodeAddrCmp(nb, List.of()));
        });
        Shared s = share(1);
        CmiSegment proxy = importOnly(onB, s.handle());
        assertEquals(NodeAddress.fromBytes(a), proxy.home());
    }
}
