package io.softcmi.smi.run;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How often a rank's watchdog callback runs when the job ends abnormally ({@link FailingRank}). */
class AbnormalEndSystemTest {
    @TempDir
    Path tmp;

    /**
     * Rank 1 of 2 calls {@code SMI_Abort} while rank 0 blocks in a barrier: rank 0 sees the abort
     * in its wait's check (every 250 ms) and in its watchdog's beat (every second); its callback
     * (2 s long) must run once, not once per thread that saw the abort.
     */
    @Test
    void shouldRunTheWatchdogCallbackOnceWhenTwoThreadsSeeTheAbort() throws Exception {
        SmirunLauncher.Result r = SmirunLauncher.run(tmp, Duration.ofSeconds(120), Map.of(), "-np", "2", "-nodes",
            "local:a", "local:b", FailingRank.class.getName(), "abortSlowCallback");
        assertEquals(3, r.exit(), r.output());
        assertEquals(1, r.output().split("rank 0: callback ran", -1).length - 1, r.output());
        assertEquals(1, r.output().split("rank 1: callback ran", -1).length - 1, r.output());
    }
}
