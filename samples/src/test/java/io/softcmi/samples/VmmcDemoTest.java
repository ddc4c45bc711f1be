package io.softcmi.samples;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class VmmcDemoTest {
    @Test
    void shouldExchangeAMessageWithNotificationBetweenTwoDaemonsAndCleanUp() throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        VmmcDemo.run(new PrintStream(buf, true, StandardCharsets.UTF_8));
        String out = buf.toString(StandardCharsets.UTF_8);
        assertTrue(out.contains("master n1.1: handler ran: last word at buffer index 16383, value 114682"), out);
        assertTrue(out.matches("(?s).*master n1\\.1: all 16384 words arrived in order.*"), out);
        assertTrue(out.matches("(?s).*peer n2\\.\\d+: the master's checksum \\p{XDigit}+ matches: exchange OK.*"), out);
        try (Stream<Path> tmp = Files.list(Path.of(System.getProperty("java.io.tmpdir")));
             Stream<Path> shm = Files.list(Path.of("/dev/shm"))) {
            String mine = "softcmi-vmmc-demo-" + ProcessHandle.current().pid() + "-";
            assertFalse(shm.anyMatch(p -> p.getFileName().toString().startsWith(mine)), "shm directories left");
            String dir = out.replaceAll("(?s).*node directories (\\S+)/n1,.*", "$1");
            assertFalse(tmp.anyMatch(p -> p.toString().equals(dir)), "work directory left: " + dir);
        }
    }
}
