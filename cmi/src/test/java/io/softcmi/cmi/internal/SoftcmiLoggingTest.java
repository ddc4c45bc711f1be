package io.softcmi.cmi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

/** The one-line log format and the level names of {@code SOFTCMI_LOG_LEVEL}. */
class SoftcmiLoggingTest {
    @Test
    void oneLinePerRecordWithTimeLevelNodeLoggerAndMessage() {
        SoftcmiLogging.nodeName("n1");
        LogRecord r = new LogRecord(Level.WARNING, "refused peer {0}\nat {1}");
        r.setParameters(new Object[] {"abc", "127.0.0.1:7001"});
        r.setLoggerName("io.softcmi.node");
        r.setInstant(Instant.parse("2026-11-23T00:47:53.123Z"));
        r.setThrown(new IllegalStateException("boom"));
        String line = new SoftcmiLogging.OneLine().format(r);
        assertEquals("2026-11-23T00:47:53.123Z WARN  [n1] io.softcmi.node: refused peer abc at 127.0.0.1:7001"
            + " (java.lang.IllegalStateException: boom)\n", line);
        assertEquals(1, line.lines().count());
        SoftcmiLogging.nodeName(null);
        assertTrue(new SoftcmiLogging.OneLine().format(r).contains(" [-] "));
    }

    @Test
    void levelNames() {
        assertEquals(Level.INFO, SoftcmiLogging.parseLevel(null, Level.INFO));
        assertEquals(Level.WARNING, SoftcmiLogging.parseLevel(" ", Level.WARNING));
        assertEquals(Level.SEVERE, SoftcmiLogging.parseLevel("error", Level.INFO));
        assertEquals(Level.WARNING, SoftcmiLogging.parseLevel("WARN", Level.INFO));
        assertEquals(Level.FINE, SoftcmiLogging.parseLevel("debug", Level.INFO));
        assertEquals(Level.ALL, SoftcmiLogging.parseLevel("TRACE", Level.INFO));
        assertEquals(Level.OFF, SoftcmiLogging.parseLevel("off", Level.INFO));
        assertThrows(IllegalArgumentException.class, () -> SoftcmiLogging.parseLevel("loud", Level.INFO));
        assertEquals("ERROR", SoftcmiLogging.levelName(Level.SEVERE));
        assertEquals("DEBUG", SoftcmiLogging.levelName(Level.FINE));
        assertEquals("TRACE", SoftcmiLogging.levelName(Level.FINEST));
    }
}
