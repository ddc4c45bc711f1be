package io.softcmi.smi.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code SMI_Finalize} while a signal callback still waits ({@link PendingCallbackRank}). */
class PendingCallbackSystemTest {
    @TempDir
    Path tmp;

    /**
     * The callback's wait ends inside {@code SMI_Finalize}: it runs if its signal came, and
     * otherwise ends without running; either way its thread is gone before the control segment
     * it waits on, and nothing fails.
     */
    @ParameterizedTest(name = "signal {0}, {1} waker")
    @CsvSource({"never,notify", "never,poll", "sent,notify", "sent,poll"})
    void shouldEndAWaitingSignalCallbackInFinalize(String mode, String waker) throws Exception {
        SmirunLauncher.Result r = SmirunLauncher.run(tmp, Duration.ofSeconds(120), Map.of("SMI_WAKER", waker), "-np",
            "2", "-nodes", "local:a", "local:b", PendingCallbackRank.class.getName(), mode);
        String out = r.output();
        assertEquals(0, r.exit(), out);
        assertTrue(out.contains("rank 0 finalized") && out.contains("rank 1 finalized"), out);
        assertFalse(out.contains("Exception"), out);
        assertEquals(mode.equals("sent"), out.contains("rank 0: callback ran"), out);
    }
}
