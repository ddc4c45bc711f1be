package io.softcmi.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** Figures a running daemon reports through {@code cmiadm}, for tests to assert on. */
final class CmiAdmFigures {
    private CmiAdmFigures() {
    }

    /**
     * One figure of {@code cmiadm dataplane} on a node.
     *
     * @param node a running daemon
     * @param name the figure's name ({@code connections_moved}, {@code notification_holds}...)
     * @return its value
     */
    static long dataplane(NodeProcess node, String name) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = io.softcmi.tools.CmiAdm.run(new String[] {"dataplane"}, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8), Map.of("SOFTCMI_NODE", node.directory().toString()));
        assertEquals(0, rc, err.toString(StandardCharsets.UTF_8));
        String text = out.toString(StandardCharsets.UTF_8);
        return text.lines().map(l -> l.trim().split("\\s+")).filter(f -> f.length == 2 && f[0].equals(name))
            .mapToLong(f -> Long.parseLong(f[1])).findFirst()
            .orElseThrow(() -> new AssertionError("no " + name + " in cmiadm dataplane:\n" + text));
    }
}
