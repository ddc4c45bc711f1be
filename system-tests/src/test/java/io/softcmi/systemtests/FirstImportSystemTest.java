package io.softcmi.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The first import of docs/deployment.md ("Three hosts", step 5) with the launchers:
 * {@code softcmi export} on node A writes a handle and a token to a file (mode 0600) and keeps the
 * segment; {@code softcmi import} on node B imports it, reads its first word and adds 1 with
 * {@code atm_cas}, twice; the usage errors.
 */
@Timeout(240)
class FirstImportSystemTest {
    private static final Duration RUN = Duration.ofSeconds(120);

    @RegisterExtension
    final SystemTestResources resources = SystemTestResources.perTest();

    @TempDir
    Path tmp;

    @Test
    void exportOnOneNodeAndImportOnAnother() throws Exception {
        ClusterNodes cluster = ClusterNodes.create(resources);
        NodeProcess a = cluster.startWithOptions("A");
        NodeProcess b = cluster.startWithOptions("B");
        Launchers bin = new Launchers(Path.of(System.getProperty("softcmi.source.root")), tmp.resolve("logs"), Map.of());
        Path shared = tmp.resolve("shared.txt");
        String idA = HexFormat.of().formatHex(ClusterNodes.nodeId(a), 0, 4);
        try (Launchers.Background export = bin.start(Map.of("SOFTCMI_NODE", a.directory().toString()), "softcmi", "export",
                "--value", "41", "--for", "200", shared.toString())) {
            export.await("serving for 200 s", Duration.ofSeconds(60));
            String exported = Files.readString(export.output());
            assertTrue(exported.contains("softcmi: exported segment 1 (4096 bytes, word 0 = 41) of node " + idA + "@"), exported);
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(shared)),
                "the token is a secret");
            Map<String, String> onB = Map.of("SOFTCMI_NODE", b.directory().toString());
            String first = bin.ok(RUN, onB, "softcmi", "import", shared.toString());
            assertTrue(first.contains(" imported a segment of node " + idA + "@") && first.contains(": word 0 was 41, now 42 (atm_cas)"), first);
            String second = bin.ok(RUN, onB, "softcmi", "import", shared.toString());
            assertTrue(second.contains("word 0 was 42, now 43"), second);
            System.out.println(exported + first + second);
        }
        Launchers.Run noNode = bin.run(RUN, Map.of(), "softcmi", "import", shared.toString());
        assertEquals(2, noNode.exit(), noNode.output());
        assertTrue(noNode.output().contains("import needs a node daemon: set SOFTCMI_NODE"), noNode.output());
        Launchers.Run noFile = bin.run(RUN, Map.of("SOFTCMI_NODE", a.directory().toString()), "softcmi", "export");
        assertEquals(2, noFile.exit(), noFile.output());
        Path bad = Files.writeString(tmp.resolve("bad.txt"), "nothing\n");
        Launchers.Run badFile = bin.run(RUN, Map.of("SOFTCMI_NODE", b.directory().toString()), "softcmi", "import",
            bad.toString());
        assertEquals(1, badFile.exit(), badFile.output());
        assertTrue(badFile.output().contains("no 'handle' or no 'token' line"), badFile.output());
    }
}
