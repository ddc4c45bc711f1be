package io.softcmi.cmi.internal.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.wire.ControlMessage.CacheReport;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A context's cache figures as the node is told them ({@code cmiadm caches}): the state of its
 * caches, its own counters (not another context's), and reports only when something changed.
 * The background thread is off, so the test drives {@link ContextCache#report()} itself.
 */
class ContextCacheReportTest {
    private static final int LINE = 512;

    private static SegmentCache cache(ContextCache ctx, FakeHome home, long capacityBytes) {
        SegmentCache c = new SegmentCache(home.memory.length, LINE, capacityBytes, home.transport(ContextCache.newCacheId()),
            ctx.stats(), offsets -> { });
        ctx.add(c);
        return c;
    }

    @Test
    void shouldReportTheStateAndTheCountersOfItsOwnCachesOnly() {
        ContextCache ctx = new ContextCache("a", false);
        ContextCache other = new ContextCache("b", false);
        long processMissesBefore = CacheStats.process().snapshot().get("misses");
        FakeHome home = new FakeHome(8 * LINE);
        SegmentCache c = cache(ctx, home, 4 * LINE);
        cache(ctx, new FakeHome(2 * LINE), 10 * LINE);
        c.load(0, 8);
        c.store(3 * LINE + 8, 8, 0x0102030405060708L, false); // not the next line: no read-ahead
        CacheReport r = ctx.figures();
        assertEquals(2, r.cachedImports());
        assertEquals(2, r.residentLines(), "one line loaded, one stored to");
        assertEquals(1, r.dirtyLines());
        assertEquals(2L * LINE + LINE / 8, r.memoryBytes(), "two lines and one write mask");
        assertEquals(14L * LINE, r.capacityBytes(), "both caches' bounds");
        assertEquals(2, r.misses());
        assertEquals(2, r.fills());
        assertEquals(2L * LINE, r.fillBytes());
        assertEquals(0, r.writeBackLines());

        assertEquals(0, SegmentCache.finish(c.startReleaseAll()).status());
        ctx.acquireAll();
        r = ctx.figures();
        assertEquals(0, r.dirtyLines());
        assertEquals(1, r.writeBackLines());
        assertEquals(1, r.diffs());
        assertEquals(12 + 8, r.diffBytes(), "one run: its header and the 8 changed bytes");
        assertEquals(1, r.acquires(), "only the cache that holds lines asks its home");

        assertEquals(new CacheReport(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), other.figures(),
            "another context's figures stay apart");
        assertTrue(CacheStats.process().snapshot().get("misses") >= processMissesBefore + 2,
            "the process counters include every context's");
        ctx.close();
        assertEquals(0, ctx.figures().cachedImports());
        assertEquals(0, ctx.figures().memoryBytes());
    }

    @Test
    void shouldReportOnlyWhenTheFiguresChangedOrTheLastOfferWasRefused() {
        ContextCache ctx = new ContextCache("c", false);
        assertFalse(ctx.report(), "nobody listens");
        List<CacheReport> sent = new ArrayList<>();
        AtomicBoolean busy = new AtomicBoolean();
        ctx.reportTo(r -> {
            if (busy.get()) {
                return false;
            }
            sent.add(r);
            return true;
        });
        SegmentCache c = cache(ctx, new FakeHome(4 * LINE), 4 * LINE);
        assertTrue(ctx.report());
        assertFalse(ctx.report(), "nothing changed");
        c.load(0, 8);
        busy.set(true);
        assertFalse(ctx.report(), "the connection was busy");
        busy.set(false);
        assertTrue(ctx.report(), "offered again after a refusal");
        assertFalse(ctx.report());
        assertEquals(2, sent.size());
        assertEquals(0, sent.get(0).misses());
        assertEquals(1, sent.get(1).misses());
        assertEquals(1, sent.get(1).residentLines());

        ctx.reportTo(r -> {
            throw new IllegalStateException("connection gone");
        });
        c.load(LINE, 8);
        assertFalse(ctx.report(), "a failing reporter is not the cache's failure");
        ctx.reportTo(null);
        c.load(2 * LINE, 8);
        assertFalse(ctx.report(), "stopped");
        ctx.close();
    }
}
