package io.softcmi.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Runs the two-process exchange on the embedded default: this JVM is the parent. */
class SharedSegmentExchangeTest {
    private static final long FACTOR = Long.getLong("softcmi.test.timeoutFactor", 1);

    @Test
    void shouldExchangeMessagesAndCountWithAChildProcess() {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);
        // The child is killed after 60 s (scaled); the whole run gets twice that.
        SharedSegmentExchange.Result r = assertTimeoutPreemptively(Duration.ofSeconds(120 * FACTOR),
            () -> SharedSegmentExchange.run(out, Duration.ofSeconds(60 * FACTOR)));

        String text = printed.toString(StandardCharsets.UTF_8);
        assertEquals(2, r.counter(), text);
        assertNotEquals(ProcessHandle.current().pid(), r.childPid());
        assertEquals("hello back from child pid " + r.childPid(), r.reply(), text);
        assertTrue(text.contains("  child | read \"" + r.message() + "\""), text);
    }
}
