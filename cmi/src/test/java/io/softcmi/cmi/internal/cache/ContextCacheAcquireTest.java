package io.softcmi.cmi.internal.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * The acquire half of {@code atm_cas} in two parts: caches on the CAS's route are asked right
 * behind the CAS, the others only after its reply, and both drop what others wrote.
 */
class ContextCacheAcquireTest {
    private static final int LINE = 512;

    /** A fake home's transport on a named route. */
    private static LineTransport routed(FakeHome home, long cacheId, String route) {
        LineTransport t = home.transport(cacheId);
        return new LineTransport() {
            @Override public Pending fill(long o, byte[] d, int off, int len) { return t.fill(o, d, off, len); }
            @Override public Pending diff(java.lang.foreign.MemorySegment runs) { return t.diff(runs); }
            @Override public Pending acquire(long since, byte[] dst) { return t.acquire(since, dst); }
            @Override public Object route() { return route; }
        };
    }

    @Test
    void shouldAskTheCassHomeEarlyAndTheOthersAfterItsReply() {
        ContextCache ctx = new ContextCache("a", false);
        FakeHome homeA = new FakeHome(4 * LINE);
        FakeHome homeB = new FakeHome(4 * LINE);
        SegmentCache onA = new SegmentCache(4 * LINE, LINE, 4 * LINE, routed(homeA, ContextCache.newCacheId(), "A"), ctx.stats(), o -> { });
        SegmentCache onB = new SegmentCache(4 * LINE, LINE, 4 * LINE, routed(homeB, ContextCache.newCacheId(), "B"), ctx.stats(), o -> { });
        ctx.add(onA);
        ctx.add(onB);
        assertEquals(0, onA.load(0, 1));
        assertEquals(0, onB.load(0, 1));
        homeA.localWrite(0, (byte) 5);
        homeB.localWrite(0, (byte) 6);

        ContextCache.EarlyAcquire early = ctx.startAcquireOn("A");
        assertEquals(1, homeA.acquires, "the CAS's home is asked at once");
        assertEquals(0, homeB.acquires, "another home only after the CAS's reply");
        ctx.finishAcquire(early);
        assertEquals(1, homeA.acquires, "not asked twice");
        assertEquals(1, homeB.acquires);
        assertEquals(5, onA.load(0, 1), "both caches dropped what others wrote");
        assertEquals(6, onB.load(0, 1));
        ctx.close();
    }
}
