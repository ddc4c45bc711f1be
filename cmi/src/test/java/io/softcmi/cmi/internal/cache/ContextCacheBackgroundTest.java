package io.softcmi.cmi.internal.cache;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The context's background writer sleeps while no line is dirty, and a store that dirties the
 * first line wakes it, so the store still reaches the home without a barrier; it refreshes (an
 * acquire over every cache) only once a period has passed without an acquire of the program
 * (docs/cache.md, "Without barriers").
 */
@Timeout(60)
class ContextCacheBackgroundTest {
    private static final int LINE = 512;

    @Test
    void shouldSleepWhileCleanAndBeWokenByTheFirstStoreWhichItWritesBack() {
        FakeHome home = new FakeHome(8 * LINE);
        ContextCache ctx = new ContextCache("background-test");
        try {
            SegmentCache c = cacheOn(home, ctx);
            long before = ctx.storeWakeUps();
            for (int round = 1; round <= 5; round++) {
                assertTrue(within(() -> c.dirtyLines() == 0 && ctx.idle()),
                    "with nothing dirty the background thread sleeps until a store");
                long value = 0x1122334455667700L + round;
                c.store(3 * LINE, 8, value, false); // no barrier follows
                assertTrue(within(() -> homeLong(home, 3 * LINE) == value),
                    "the background writer wrote the store back without a barrier");
            }
            // Each round's store found the writer asleep, except one that came during its pass
            // for a due acquire (microseconds every 10 ms): nearly every round woke it.
            assertTrue(ctx.storeWakeUps() - before >= 4, "stores woke the sleeping writer: " + (ctx.storeWakeUps() - before));
            assertTrue(within(() -> c.dirtyLines() == 0 && ctx.idle()), "clean again, it sleeps again");

            long wakeUps = ctx.storeWakeUps();
            int diffsBefore = diffs(home);
            c.store(3 * LINE + 8, 8, 7, false);
            c.store(3 * LINE + 16, 8, 8, false); // the line is dirty already: no second wake-up
            assertTrue(within(() -> homeLong(home, 3 * LINE + 16) == 8 && c.dirtyLines() == 0),
                "both stores written back");
            // Each clean-to-dirty change ends in one write-back. Usually both stores go in one;
            // a preemption between them can let the writer write the first back alone, and then
            // the second store dirties the line again and wakes it again, rightly.
            long woken = ctx.storeWakeUps() - wakeUps;
            int writeBacks = diffs(home) - diffsBefore;
            assertTrue(woken <= 1 || woken <= writeBacks,
                "at most one wake-up per clean-to-dirty change, not per store: " + woken + " wake-ups, "
                    + writeBacks + " write-backs");
        } finally {
            ctx.close();
        }
    }

    @Test
    void shouldRefreshOnlyAfterAPeriodWithoutAnAcquireOfTheProgram() throws InterruptedException {
        ContextCache ctx = new ContextCache("refresh-test");
        try {
            SegmentCache c = cacheOn(new FakeHome(8 * LINE), ctx);
            long period = ContextCache.REFRESH_PERIOD_MS * 1_000_000;
            // The program acquires every millisecond for 300 ms (as a loop of barriers does), with
            // a line cached each time: the background thread has nothing to add. A refresh may
            // only follow a gap of a whole period between two of the program's acquires (this
            // thread descheduled that long).
            long refreshesBefore = ctx.refreshes();
            int gaps = 0;
            long last = System.nanoTime();
            long end = last + 300_000_000L;
            while (System.nanoTime() - end < 0) {
                c.load(0, 8); // resident again: an acquire would ask the home
                ctx.acquireAll();
                long now = System.nanoTime();
                if (now - last >= period) {
                    gaps++;
                }
                last = now;
                Thread.sleep(1);
            }
            long during = ctx.refreshes() - refreshesBefore;
            assertTrue(during <= gaps + 1, during + " refreshes while the program acquired every millisecond (" + gaps
                + " gaps of a period)");

            // Then the program stops acquiring: the background thread refreshes about once a period.
            c.load(0, 8);
            long quietStart = ctx.refreshes();
            Thread.sleep(20 * ContextCache.REFRESH_PERIOD_MS);
            long quiet = ctx.refreshes() - quietStart;
            assertTrue(quiet >= 5, "refreshes in 20 periods without an acquire of the program: " + quiet);
        } finally {
            ctx.close();
        }
    }

    /** @return a cache of all of {@code home}'s lines, added to {@code ctx} (which starts its background thread) */
    private static SegmentCache cacheOn(FakeHome home, ContextCache ctx) {
        SegmentCache c = new SegmentCache(home.memory.length, LINE, 8L * LINE, home.transport(ContextCache.newCacheId()), ctx.stats(),
            offsets -> { });
        ctx.add(c);
        return c;
    }

    private static int diffs(FakeHome home) {
        synchronized (home) {
            return home.diffs;
        }
    }

    private static long homeLong(FakeHome home, int offset) {
        VarHandle.fullFence(); // the background thread wrote the home's bytes
        synchronized (home) {
            return ByteBuffer.wrap(home.memory).order(ByteOrder.nativeOrder()).getLong(offset);
        }
    }

    /** Polls {@code condition} for at most 10 s. */
    private static boolean within(BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() - deadline < 0) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.onSpinWait();
        }
        return condition.getAsBoolean();
    }
}
