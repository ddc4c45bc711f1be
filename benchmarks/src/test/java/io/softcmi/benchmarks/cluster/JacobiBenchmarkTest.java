package io.softcmi.benchmarks.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class JacobiBenchmarkTest {
    @Test
    @Timeout(180)
    void shouldAlternateTheSequentialRunAndGiveEachConfigurationsMedian() throws Exception {
        List<String> lines = run("24", "4", "ONE_PROCESS", "--rounds", "3");
        assertEquals(1, lines.stream().filter(l -> l.startsWith("round 2 (sequential run last): sequential ")).count(),
            String.join("\n", lines));
        assertEquals(1, lines.stream().filter(l -> l.startsWith("round 3 (sequential run first): sequential ")).count());
        for (String name : List.of("raw floor: 2 threads, arrays, barrier", "1 process on 1 node")) {
            assertTrue(lines.stream().filter(l -> l.startsWith("round ")).allMatch(l -> l.contains("; " + name + " ")),
                name + " in every round");
            assertEquals(1, lines.stream().filter(l -> l.startsWith("time, " + name + " / sequential Java: median ")
                && l.contains(" over 3 rounds ")).count(), name + "'s median");
        }
    }

    @Test
    void shouldRefuseFewerThanOneRound() {
        assertThrows(IllegalArgumentException.class, () -> JacobiBenchmark.main(new String[] {"24", "4", "--rounds", "0"}));
        assertThrows(IllegalArgumentException.class, () -> JacobiBenchmark.main(new String[] {"24", "4", "--rounds"}));
    }

    /** @return what {@code JacobiBenchmark} printed, with only the thread floor */
    private static List<String> run(String... args) throws Exception {
        PrintStream was = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setProperty("bench.jacobiFloors", "THREADS");
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            JacobiBenchmark.main(args);
        } finally {
            System.setOut(was);
            System.clearProperty("bench.jacobiFloors");
        }
        return out.toString(StandardCharsets.UTF_8).lines().toList();
    }
}
