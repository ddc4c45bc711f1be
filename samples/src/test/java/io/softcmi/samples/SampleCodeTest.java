package io.softcmi.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.cmi.Cmi;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Runs the samples on the embedded default, as {@code softcmi demo} does. */
class SampleCodeTest {
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldAllocateAttachAndExportA32MiBSegment() {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        SampleCode.Result r = SampleCode.run(new PrintStream(printed, true, StandardCharsets.UTF_8));

        assertEquals(Cmi.LIBRARY_VERSION, r.version());
        assertEquals(SampleCode.SEG_SIZE, r.segmentSize());
        assertEquals(SampleCode.SEG_SIZE, r.mappingSize());
        assertTrue(r.segmentId() > 0, "segment id " + r.segmentId());
        assertTrue(r.rsegSize() > 0, "CMI_ATTR_RSEG_SIZE " + r.rsegSize());
        assertEquals(r.rsegSize(), r.handleBytes());
        String text = printed.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("seg_get(32 MiB, CMI_SEG_LOCK)"), text);
        assertTrue(text.contains("seg_exp(seg)"), text);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldRunAgainInTheSameProcess() {
        PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        SampleCode.Result first = SampleCode.run(quiet);
        SampleCode.Result second = SampleCode.run(quiet);
        assertTrue(second.segmentId() != first.segmentId(), "a removed segment's id is not reused at once");
    }
}
