package io.softcmi.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;
import org.junit.jupiter.api.Test;

class DataPathStatsTest {
    @Test
    void shouldAddUpTheServiceTimesOfEveryThreadAndKeepThemAcrossReports() throws InterruptedException {
        DataPathStats stats = new DataPathStats();
        SingleWriterRecorder own = stats.serviceRecorder();
        assertSame(own, stats.serviceRecorder(), "one recorder per thread");
        own.recordValue(2_000);
        SingleWriterRecorder[] other = new SingleWriterRecorder[1];
        Thread t = Thread.ofPlatform().start(() -> {
            other[0] = stats.serviceRecorder();
            for (int i = 0; i < 3; i++) {
                other[0].recordValue(50_000);
            }
        });
        t.join(10_000);
        assertNotSame(own, other[0], "another thread records into its own recorder");

        Histogram first = stats.serviceHistogram();
        assertEquals(4, first.getTotalCount());
        assertEquals(50_000, first.getMaxValue(), 50);

        own.recordValue(7_000);
        Histogram second = stats.serviceHistogram();
        assertEquals(5, second.getTotalCount(), "a report holds everything recorded so far, not only the interval");
        assertEquals(2_000, second.getMinValue(), 2);
    }
}
