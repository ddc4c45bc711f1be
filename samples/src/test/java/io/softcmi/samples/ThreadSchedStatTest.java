package io.softcmi.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The scheduler's figures of the calling thread that the Jacobi workers report. */
class ThreadSchedStatTest {
    @Test
    void shouldReadTheThreeFiguresOfTheSchedstatLine() {
        ThreadSchedStat s = ThreadSchedStat.parse("2515049377 10450123 4211\n");
        assertEquals(new ThreadSchedStat(2_515_049_377L, 10_450_123L, 4_211L), s);
    }

    @Test
    void shouldRefuseALineThatIsNotThreeNumbers() {
        assertThrows(NumberFormatException.class, () -> ThreadSchedStat.parse("12 34"));
        assertThrows(NumberFormatException.class, () -> ThreadSchedStat.parse("12 x 56"));
    }

    @Test
    void shouldGiveTheDifferenceBetweenTwoReadings() {
        ThreadSchedStat d = new ThreadSchedStat(500, 70, 9).since(new ThreadSchedStat(200, 20, 4));
        assertEquals(new ThreadSchedStat(300, 50, 5), d);
    }

    @Test
    void shouldCountTheCallingThreadsOwnRunningTime() {
        assumeTrue(Files.isReadable(Path.of("/proc/thread-self/schedstat")), "Linux with scheduler statistics");
        ThreadSchedStat before = ThreadSchedStat.current();
        long until = System.nanoTime() + 20_000_000;
        long spins = 0;
        while (System.nanoTime() < until) {
            spins++;
        }
        ThreadSchedStat d = ThreadSchedStat.current().since(before);
        assertTrue(spins > 0);
        assertTrue(d.runNanos() >= 5_000_000, "ran " + d.runNanos() + " ns of a 20 ms spin");
        assertTrue(d.slices() >= 0 && d.waitNanos() >= 0, d.toString());
    }
}
