package io.softcmi.cmi.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * {@link ReaderStandby}: the reader stands by only while callers read, and whoever needs it
 * gets it back, even if it asked just before the stand-by began.
 */
class ReaderStandbyTest {
    private static final Duration BOUND = Duration.ofSeconds(20);

    @Test
    void shouldNotStandByWhenNoCallerEverRead() {
        ReaderStandby s = new ReaderStandby();
        s.reader(Thread.currentThread());
        assertTimeoutPreemptively(BOUND, () -> assertFalse(s.standBy(() -> true, () -> false)));
    }

    @Test
    void shouldStandByWhileACallerReadsAndLeaveOnceCallsStop() throws Exception {
        ReaderStandby s = new ReaderStandby();
        AtomicBoolean reading = new AtomicBoolean(true);
        AtomicBoolean parked = new AtomicBoolean();
        Thread reader = Thread.ofPlatform().unstarted(() -> parked.set(s.standBy(() -> true, reading::get)));
        s.reader(reader);
        reader.start();
        assertTimeoutPreemptively(BOUND, () -> {
            while (!s.standing()) {
                Thread.sleep(1);
            }
            Thread.sleep(20); // a hundred lingers: it stays while the caller reads
            assertTrue(reader.isAlive() && s.standing(), "left its stand-by while a caller was reading");
            s.callerRead();
            reading.set(false);
            reader.join(); // returns one linger after the caller stopped
        });
        assertTrue(parked.get());
    }

    @Test
    void shouldLeaveWhenWanted() throws Exception {
        ReaderStandby s = new ReaderStandby();
        Thread reader = Thread.ofPlatform().unstarted(() -> s.standBy(() -> true, () -> true));
        s.reader(reader);
        reader.start();
        assertTimeoutPreemptively(BOUND, () -> {
            while (!s.standing()) {
                Thread.sleep(1);
            }
            s.want();
            reader.join();
        });
    }

    @Test
    void shouldNotMissAWantMadeBeforeTheStandBy() {
        ReaderStandby s = new ReaderStandby();
        s.reader(Thread.currentThread());
        s.want();
        assertTimeoutPreemptively(BOUND, () -> assertFalse(s.standBy(() -> true, () -> true)));
    }

    @Test
    void shouldLeaveWhenTheConnectionCloses() throws Exception {
        ReaderStandby s = new ReaderStandby();
        AtomicBoolean open = new AtomicBoolean(true);
        Thread reader = Thread.ofPlatform().unstarted(() -> s.standBy(open::get, () -> true));
        s.reader(reader);
        reader.start();
        assertTimeoutPreemptively(BOUND, () -> {
            while (!s.standing()) {
                Thread.sleep(1);
            }
            open.set(false);
            reader.join(); // it re-checks at least once per linger
        });
    }
}
