package io.softcmi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CmiAdmParseTest {
    private static final Map<String, String> NO_ENV = Map.of();

    @Test
    void shouldParseEveryTableWithDir() {
        for (String table : CmiAdm.TABLES) {
            CmiAdm.Command c = CmiAdm.parse(new String[] {"--dir", "/tmp/n1", table}, NO_ENV);
            assertEquals(Path.of("/tmp/n1"), c.dir());
            assertEquals(table, c.action());
            assertFalse(c.json());
            assertFalse(c.deletesReservation());
        }
    }

    @Test
    void shouldAcceptOptionsInAnyOrderAndDirWithEquals() {
        CmiAdm.Command c = CmiAdm.parse(new String[] {"segments", "--json", "--dir=/x"}, NO_ENV);
        assertEquals(Path.of("/x"), c.dir());
        assertTrue(c.json());
        assertEquals("segments", c.action());
    }

    @Test
    void shouldUseSoftcmiNodeWithoutDir() {
        CmiAdm.Command c = CmiAdm.parse(new String[] {"contexts"}, Map.of("SOFTCMI_NODE", "/run/n2"));
        assertEquals(Path.of("/run/n2"), c.dir());
    }

    @Test
    void shouldPreferDirOverSoftcmiNode() {
        CmiAdm.Command c = CmiAdm.parse(new String[] {"--dir", "/a", "nodes"}, Map.of("SOFTCMI_NODE", "/b"));
        assertEquals(Path.of("/a"), c.dir());
    }

    @Test
    void shouldParseReservationDelete() {
        CmiAdm.Command c = CmiAdm.parse(new String[] {"reservation-delete", "8214"}, Map.of("SOFTCMI_NODE", "/n"));
        assertTrue(c.deletesReservation());
        assertEquals(8214, c.key());
        CmiAdm.Command big = CmiAdm.parse(new String[] {"reservation-delete", Long.toString(Long.MAX_VALUE)},
            Map.of("SOFTCMI_NODE", "/n"));
        assertEquals(Long.MAX_VALUE, big.key());
    }

    @Test
    void shouldRejectBadCommandLines() {
        Map<String, String> env = Map.of("SOFTCMI_NODE", "/n");
        assertUsage("no command given", new String[] {}, env);
        assertUsage("no command given", new String[] {"--json"}, env);
        assertUsage("unknown command 'segs'", new String[] {"segs"}, env);
        assertUsage("unknown option --verbose", new String[] {"--verbose", "nodes"}, env);
        assertUsage("missing value after --dir", new String[] {"nodes", "--dir"}, env);
        assertUsage("unexpected argument 'contexts'", new String[] {"nodes", "contexts"}, env);
        assertUsage("reservation-delete needs a reservation KEY", new String[] {"reservation-delete"}, env);
        assertUsage("decimal number", new String[] {"reservation-delete", "abc"}, env);
        assertUsage("must be positive", new String[] {"reservation-delete", "0"}, env);
        assertUsage("must be positive", new String[] {"reservation-delete", "-5"}, env);
        assertUsage("unexpected argument '2'", new String[] {"reservation-delete", "1", "2"}, env);
        assertUsage("--json applies to listings only", new String[] {"--json", "reservation-delete", "1"}, env);
        assertUsage("no node", new String[] {"nodes"}, NO_ENV);
        assertUsage("no node", new String[] {"nodes"}, Map.of("SOFTCMI_NODE", " "));
    }

    @Test
    void shouldExitTwoWithUsageOnBadCommandLine() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = CmiAdm.run(new String[] {"frobnicate"}, print(out), print(err), Map.of("SOFTCMI_NODE", "/n"));
        assertEquals(CmiAdm.EXIT_USAGE, status);
        assertEquals("", out.toString(StandardCharsets.UTF_8));
        String e = err.toString(StandardCharsets.UTF_8);
        assertTrue(e.startsWith("cmiadm: unknown command 'frobnicate'\nusage: cmiadm"), e);
    }

    @Test
    void shouldPrintUsageForHelp() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(0, CmiAdm.run(new String[] {"--help"}, print(out), print(new ByteArrayOutputStream()), NO_ENV));
        assertTrue(out.toString(StandardCharsets.UTF_8).startsWith("usage: cmiadm"));
    }

    @Test
    void shouldExitOneWithCmiErrorWhenNoNodeAnswers(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = CmiAdm.run(new String[] {"--dir", dir.toString(), "segments"}, print(new ByteArrayOutputStream()),
            print(err), NO_ENV);
        assertEquals(CmiAdm.EXIT_FAILED, status);
        String e = err.toString(StandardCharsets.UTF_8);
        assertTrue(e.startsWith("cmiadm: CMI_ERR_INIT: no CMI node daemon at " + dir.resolve("cmid.sock")), e);
    }

    private static void assertUsage(String expected, String[] args, Map<String, String> env) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CmiAdm.parse(args, env));
        assertTrue(e.getMessage().contains(expected), () -> "expected '" + expected + "' in '" + e.getMessage() + "'");
    }

    private static PrintStream print(ByteArrayOutputStream b) {
        return new PrintStream(b, true, StandardCharsets.UTF_8);
    }
}
