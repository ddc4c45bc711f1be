package io.softcmi.smi.run;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * SMI's synchronization repeated many times over two daemons ({@link SyncStressRank}): every
 * rank must report no bad round, and the job must end normally.
 */
class SyncStressSystemTest {
    private static final Pattern LINE = Pattern.compile("stress (\\w+): rank (\\d+): bad (\\d+) of (\\d+)");

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}, {1} ranks, {2} rounds, {3} waker")
    @CsvSource({"pc,2,2000,notify", "pc,2,2000,poll", "mutex,3,300,notify", "mutex,3,300,poll", "barrier,3,1000,notify",
        "barrier,4,600,poll", "signal,3,600,notify", "signal,3,600,poll", "signalThreads,2,2000,notify",
        "signalThreads,2,2000,poll", "sendThreads,2,1000,notify", "sendThreads,2,1000,poll"})
    void shouldKeepEveryRoundsDataConsistent(String mode, int np, int rounds, String waker) throws Exception {
        // Rank 0 on one daemon, the others on a second one.
        List<String> cmd = new ArrayList<>(List.of("-np", Integer.toString(np), "-nodes", "local:a"));
        for (int i = 1; i < np; i++) {
            cmd.add("local:b");
        }
        cmd.addAll(List.of("--", SyncStressRank.class.getName(), mode, Integer.toString(rounds)));
        SmirunLauncher.Result r = SmirunLauncher.run(tmp, Duration.ofSeconds(240), Map.of("SMI_WAKER", waker),
            cmd.toArray(String[]::new));
        assertEquals(0, r.exit(), r.output());
        Matcher m = LINE.matcher(r.output());
        int lines = 0;
        while (m.find()) {
            lines++;
            assertEquals(mode, m.group(1), r.output());
            assertEquals("0", m.group(3), "rank " + m.group(2) + " saw bad rounds:\n" + r.output());
            assertEquals(Integer.toString(rounds), m.group(4));
        }
        assertEquals(np, lines, "one line per rank:\n" + r.output());
    }
}
