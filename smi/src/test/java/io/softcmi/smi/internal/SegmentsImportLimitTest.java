package io.softcmi.smi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiException;
import io.softcmi.cmi.CmiVersion;
import io.softcmi.node.NodeConfig;
import io.softcmi.node.NodeDaemon;
import io.softcmi.smi.SmiError;
import io.softcmi.smi.SmiException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code SMI_Connect_shreg} gives when the segment of another process cannot be imported
 * (docs/smi.md): {@code NOSEGMENT} when the node holds its maximum of imports, {@code OTHER} for a
 * segment its owner freed. The segments are imported as those of another node are: with
 * {@code -nolocal} ({@link Segments}' {@code noLocal}), on a node of the test's own that allows
 * four imports.
 */
class SegmentsImportLimitTest {
    private static final int IMPORTS = 4;
    @TempDir
    Path dir;
    private NodeDaemon node;
    private CmiContext ctx;
    private Segments segments;

    @BeforeEach
    void start() throws Exception {
        Path nodeDir = Files.createDirectory(dir.resolve("node"));
        node = NodeDaemon.start(new NodeConfig().directory(nodeDir).name("few-imports").maxImports(IMPORTS));
        System.setProperty("softcmi.node", nodeDir.toString());
        try {
            ctx = Cmi.init(new CmiVersion(1, 1));
        } finally {
            System.clearProperty("softcmi.node");
        }
        segments = new Segments(ctx, true);
    }

    @AfterEach
    void stop() {
        if (ctx != null) {
            ctx.fini();
        }
        node.close();
    }

    @Test
    void shouldGiveNosegmentWhenTheNodeHasNoImportLeftAndConnectOnceOneIsFreed() {
        List<Segments.Foreign> imported = new ArrayList<>();
        SmiException full = null;
        for (int i = 0; i <= IMPORTS && full == null; i++) {
            Segments.Own own = segments.create(4096, true);
            try {
                imported.add(segments.attach(own.ref()));
            } catch (SmiException e) {
                full = e;
            }
        }
        assertTrue(full != null, "every one of " + (IMPORTS + 1) + " imports succeeded");
        assertEquals(SmiError.NOSEGMENT, full.error(), full.toString());
        assertEquals(IMPORTS, imported.size(), "the node's imports, all in use");
        Segments.Own another = segments.create(4096, true);
        assertEquals(SmiError.NOSEGMENT, assertThrows(SmiException.class, () -> segments.attach(another.ref())).error());
        segments.detach(imported.get(0));
        Segments.Foreign f = segments.attach(another.ref());
        ctx.enable(true); // remote access (cmi_enb), as SMI's own threads have it
        f.map().putLong(0, 9);
        ctx.wmb();
        assertEquals(9, another.map().getLong(0), "the import reaches the segment");
    }

    @Test
    void shouldGiveOtherForASegmentItsOwnerFreed() {
        Segments.Own own = segments.create(4096, true);
        SegmentRef ref = own.ref();
        segments.destroy(own);
        CmiException gone = assertThrows(CmiException.class, () -> segments.attach(ref));
        assertEquals(SmiError.OTHER, Errors.fromCmi("SMI_Connect_shreg", gone).error(), gone.toString());
    }
}
