package io.softcmi.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class ThreeNodeClusterTest {
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldShareOneCounterAcrossThreeNodesAndRefuseARevokedToken() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        long total = ThreeNodeCluster.run(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(6_000, total, out);
        assertTrue(out.contains("node 2: imported as proxy"), out);
        assertTrue(out.contains("reads \"hello from node 1\""), out);
        assertTrue(out.contains("access after revocation -> CMI_ERROR_TOKEN"), out);
    }
}
