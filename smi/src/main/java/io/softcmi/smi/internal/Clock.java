package io.softcmi.smi.internal;

import java.time.Duration;
import java.time.Instant;

/**
 * SMI's time calls ({@code SMI_Get_timer}, {@code SMI_Get_timespan}, {@code SMI_Get_ticks},
 * {@code SMI_Wtime}): the process's clock and the instant of its last timer call.
 */
public final class Clock {
    private long lastTimerNanos = System.nanoTime();

    /** @return {@code SMI_Get_timer}: the current system time (since the epoch), in microseconds */
    public Duration timer() {
        lastTimerNanos = System.nanoTime();
        Instant now = Instant.now();
        return Duration.ofSeconds(now.getEpochSecond(), now.getNano() / 1000 * 1000L);
    }

    /** @return {@code SMI_Get_timespan}: time since the last {@code timer}/{@code timespan} call or since creation */
    public Duration timespan() {
        long now = System.nanoTime();
        Duration d = Duration.ofNanos((now - lastTimerNanos) / 1000 * 1000);
        lastTimerNanos = now;
        return d;
    }

    /** @return {@code SMI_Get_ticks}: a high-resolution counter, in nanoseconds */
    public long ticks() {
        return System.nanoTime();
    }

    /** @return {@code SMI_Wtime}: wall-clock seconds since an arbitrary point */
    public double wtime() {
        return System.nanoTime() / 1e9;
    }
}
