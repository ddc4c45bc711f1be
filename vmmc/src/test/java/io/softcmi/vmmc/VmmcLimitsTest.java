package io.softcmi.vmmc;

import static io.softcmi.vmmc.VmmcCallsTest.code;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiException;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.RemoteSegmentHandle;
import io.softcmi.node.NodeConfig;
import io.softcmi.node.NodeDaemon;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The resource-limit codes: NO_MEM (an allocation, an export without CMI memory, an import without a CMI import left), NO_PHYS_DEST_SPACE, NO_VIRT_DEST_SPACE; NOT_IN_HANDLER and NO_SUCH_PROCESS for Spawn. */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class VmmcLimitsTest {
    @TempDir
    Path share;
    Endpoint rx;

    @BeforeEach
    void start() {
        System.clearProperty("softcmi.node");
        System.setProperty("vmmc.share", share.toString());
        System.setProperty("vmmc.session", "limits");
        System.setProperty("vmmc.hosts", "alpha");
        rx = new Endpoint("rx");
    }

    @AfterEach
    void stop() {
        System.clearProperty("vmmc.maxImports");
        System.clearProperty("vmmc.destSpaceBytes");
        if (rx != null) {
            rx.close();
        }
    }

    private void export(int id, long nwords) {
        rx.run(v -> v.exportRecvBuf(v.allocate(nwords), nwords, id, null, EnumSet.of(BufFlag.READWRITE), 0));
    }

    @Test
    void shouldReportNoMemForAnImpossibleAllocation() {
        assertEquals(VmmcResult.NO_MEM, code(() -> rx.run(v -> v.allocate(1L << 61))));
    }

    @Test
    void shouldReportNoMemWhenCmiHasNoMemoryForAnExport() {
        // A reservation holding all of the node's CMI memory, not associated with the context:
        // the export's own segment (REDIRECTABLE buffers always get one) finds none left.
        MemorySegment buf = rx.with(v -> v.allocate(4));
        long key = rx.with(v -> {
            long k = v.ctx.ctlMemReserve(v.ctx.ctlInfo().maxMemAvail()).rsvKey();
            v.ctx.ctlMemReserveSet(0);
            return k;
        });
        try {
            assertEquals(VmmcResult.NO_MEM, code(() -> rx.run(v ->
                v.exportRecvBuf(buf, 4, 1, null, EnumSet.of(BufFlag.READWRITE, BufFlag.REDIRECTABLE), 0))));
        } finally {
            rx.run(v -> {
                v.ctx.ctlMemReserveSet(key);
                v.ctx.ctlMemReserveDel();
            });
        }
        // nothing of the failed export is left: the id exports now
        assertEquals(VmmcResult.SUCCESS, code(() -> rx.run(v ->
            v.exportRecvBuf(buf, 4, 1, null, EnumSet.of(BufFlag.READWRITE, BufFlag.REDIRECTABLE), 0))));
    }

    /**
     * Imports of segments of {@code ctx}'s own, one each, until the node has no import left.
     *
     * @return the proxies made
     */
    private static List<CmiSegment> fillImports(CmiContext ctx) {
        List<CmiSegment> proxies = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            CmiSegment s = ctx.segGet(4096, Set.of());
            RemoteSegmentHandle h = ctx.segExp(s, Set.of());
            try {
                proxies.add(ctx.segImp(h));
            } catch (CmiException e) {
                assertEquals(CmiError.NOMEM, e.error(), e.toString());
                return proxies;
            }
        }
        throw new AssertionError("the node's imports never ran out");
    }

    @Test
    void shouldReportNoMemForAnImportWhenTheNodeHasNoImportLeft() throws Exception {
        rx.close(); // on the embedded node: this test's processes use a node that allows few imports
        rx = null;
        Path dir = java.nio.file.Files.createDirectory(share.resolve("node"));
        NodeDaemon node = NodeDaemon.start(new NodeConfig().directory(dir).name("few-imports").maxImports(4));
        try {
            System.setProperty("softcmi.node", dir.toString());
            try (Endpoint a = new Endpoint("a"); Endpoint b = new Endpoint("b")) {
                a.run(v -> v.exportRecvBuf(v.allocate(4), 4, 1, null, EnumSet.of(BufFlag.READWRITE), 0));
                VmmcNode n = a.with(Vmmc::myNode);
                VmmcPid p = a.with(Vmmc::myPid);
                List<CmiSegment> proxies = b.with(v -> fillImports(v.ctx));
                assertEquals(VmmcResult.NO_MEM, code(() -> b.run(v -> v.importRecvBuf(n, p, 1))));
                assertEquals(VmmcResult.NO_MEM, code(() -> b.run(v -> v.importRecvBuf(n, p, 1))), "nothing freed an import");
                b.run(v -> v.ctx.segRemove(proxies.get(0))); // one import free again
                ImportHandle h = b.with(v -> v.importRecvBuf(n, p, 1));
                b.run(v -> v.sendData(VmmcCallsTest.words(1), h.proxyBuf(), 1));
            } finally {
                System.clearProperty("softcmi.node");
            }
        } finally {
            node.close();
        }
    }

    @Test
    void shouldReportNoPhysDestSpacePastTheImportLimit() {
        System.setProperty("vmmc.maxImports", "1");
        try (Endpoint tx = new Endpoint("tx")) {
            export(1, 4);
            export(2, 4);
            VmmcNode n = rx.with(Vmmc::myNode);
            VmmcPid p = rx.with(Vmmc::myPid);
            tx.run(v -> v.importRecvBuf(n, p, 1));
            assertEquals(VmmcResult.NO_PHYS_DEST_SPACE, code(() -> tx.run(v -> v.importRecvBuf(n, p, 2))));
        }
    }

    @Test
    void shouldReportNoVirtDestSpacePastTheAddressLimit() {
        System.setProperty("vmmc.destSpaceBytes", "16384");
        try (Endpoint tx = new Endpoint("tx")) {
            export(1, 1024);
            export(2, 4096);
            VmmcNode n = rx.with(Vmmc::myNode);
            VmmcPid p = rx.with(Vmmc::myPid);
            tx.run(v -> v.importRecvBuf(n, p, 1));
            assertEquals(VmmcResult.NO_VIRT_DEST_SPACE, code(() -> tx.run(v -> v.importRecvBuf(n, p, 2))));
        }
    }

    @Test
    void shouldReportNoSuchProcessWhenSpawnCannotStart() throws Exception {
        // The output directory cannot be made (a file is in its place): Spawn fails before any process starts.
        Path notADir = java.nio.file.Files.createFile(share.resolve("out-is-a-file"));
        System.setProperty("vmmc.outdir", notADir.toString());
        try (Endpoint p = new Endpoint("parent")) {
            System.clearProperty("vmmc.outdir");
            assertEquals(VmmcResult.NO_SUCH_PROCESS, code(() -> p.run(v -> v.spawn("java.lang.Object", null, v.myNode()))));
        } finally {
            System.clearProperty("vmmc.outdir");
        }
    }

    @Test
    void shouldRefuseSpawnInsideAHandler() throws Exception {
        try (Endpoint tx = new Endpoint("tx")) {
            AtomicReference<VmmcResult> r = new AtomicReference<>();
            Vmmc self = rx.vmmc;
            MemorySegment buf = rx.with(v -> v.allocate(4));
            rx.run(v -> v.exportRecvBuf(buf, 4, 7, (a, val) ->
                r.set(code(() -> self.spawn("java.lang.Object", new String[0], self.myNode()))), EnumSet.of(BufFlag.READWRITE), 0));
            VmmcNode n = rx.with(Vmmc::myNode);
            VmmcPid p = rx.with(Vmmc::myPid);
            ImportHandle h = tx.with(v -> v.importRecvBuf(n, p, 7));
            tx.run(v -> v.sendDataNotify(VmmcCallsTest.words(1), h.proxyBuf(), 1));
            VmmcCallsTest.await(() -> r.get() != null);
            assertEquals(VmmcResult.NOT_IN_HANDLER, r.get());
        }
    }
}
