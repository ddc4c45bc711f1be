package io.softcmi.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The Jacobi sample gives the sequential result exactly on one, two and three nodes. */
class JacobiStencilTest {
    @Test
    @Timeout(240)
    void shouldMatchTheSequentialRunOnOneTwoAndThreeNodes() {
        for (int workers = 1; workers <= 3; workers++) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            JacobiStencil.Result r = JacobiStencil.run(64, 20, workers, new PrintStream(bytes, true, StandardCharsets.UTF_8));
            System.out.print(bytes.toString(StandardCharsets.UTF_8));
            assertEquals(0.0, r.maxDiff(), "difference from the sequential run with " + workers + " workers");
        }
    }
}
