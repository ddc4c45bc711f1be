package io.softcmi.samples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class SmiDemoTest {
    @Test
    void shouldRunHelloWorldOnFourRanksOverTwoDaemons() {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        SmiDemo.run(new PrintStream(buf, true, StandardCharsets.UTF_8));
        String out = buf.toString(StandardCharsets.UTF_8);
        for (int i = 0; i < 4; i++) {
            assertTrue(out.contains("Hello world from process " + i + " of 4"), out);
        }
        assertTrue(out.contains("node 1 local:b (pseudo): ranks 2..3"), out);
    }
}
