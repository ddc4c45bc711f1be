package io.softcmi.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.BitSet;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Cached imports across three daemons (issue 7, docs/cache.md): store buffering with mb, false
 * sharing, eviction under a tiny cache, flush epochs, cflush, atm_cas next to cached stores, and
 * write-through imports that reach the home on every store. The message-passing litmus test with
 * wmb/rmb over cached imports is {@link RemoteLitmusTest} (its segments are cached imports).
 * Segments are created on A; B and C import them.
 */
@Timeout(300)
class CachedImportTest {
    private static final int SB_TRIALS = 10_000;
    private static final long PAGE = 4096;

    @RegisterExtension
    static final SystemTestResources RESOURCES = SystemTestResources.perClass();

    private static ClientProcess a;
    private static ClientProcess b;
    private static ClientProcess c;
    private static String addressB;
    private static String addressC;
    private static NodeProcess nodeA;
    private static NodeProcess nodeB;
    private static ClusterNodes cluster;
    private static ClientProcess held;

    @BeforeAll
    @Timeout(90)
    static void startCluster() throws IOException {
        cluster = ClusterNodes.create(RESOURCES);
        List<NodeProcess> nodes = cluster.start("A", "B", "C");
        nodeA = nodes.get(0);
        nodeB = nodes.get(1);
        List<ClientProcess> workers = cluster.clients(nodes.get(0), nodes.get(1), nodes.get(2));
        a = workers.get(0);
        b = workers.get(1);
        c = workers.get(2);
        addressB = b.expect("node", "NODE");
        addressC = c.expect("node", "NODE");
    }

    private record Shared(long onA, long onB, long onC) {
    }

    /** A fresh segment on A (attached there), imported and attached on B and C; {@code cacheBytes > 0} sizes their caches first. */
    private static Shared fresh(long size, boolean writeThrough, long cacheBytes) {
        long id = Long.parseLong(a.expect("create " + size, "SEGMENT"));
        a.expect("attach " + id, "ATTACHED");
        String handle = a.expect("export " + id + (writeThrough ? " WRITE_THROUGH" : ""), "HANDLE");
        String tokenB = a.expect("token " + id + " " + addressB + " READ,WRITE,ATOMIC", "TOKEN");
        String tokenC = a.expect("token " + id + " " + addressC + " READ,WRITE,ATOMIC", "TOKEN");
        return new Shared(id, importAndAttach(b, handle, tokenB, cacheBytes), importAndAttach(c, handle, tokenC, cacheBytes));
    }

    private static long importAndAttach(ClientProcess w, String handle, String token, long cacheBytes) {
        long proxy = Long.parseLong(w.expect("import " + handle, "PROXY").split(" ")[0]);
        w.expect("set-token " + proxy + " " + token, "OK");
        if (cacheBytes > 0) {
            assertEquals("OK " + cacheBytes, w.request("cache-size " + proxy + " " + cacheBytes));
        }
        w.expect("attach " + proxy, "ATTACHED");
        return proxy;
    }

    /**
     * One context attaches a cached import twice (two mappings, two line caches, one cache id):
     * a store through one, released with wmb, must be seen through the other after rmb. The
     * home logs the write as the context's cache's and an acquire skips the asker's own writes,
     * so the other mapping's acquire must not keep its line. The segment is attached on A
     * read-only: a writable attach at the home would make every acquire drop everything.
     */
    @Test
    void shouldSeeAStoreMadeThroughAnotherAttachOfTheSameContextAfterRmb() {
        long id = Long.parseLong(a.expect("create " + 4 * PAGE, "SEGMENT"));
        a.expect("attach " + id + " READ", "ATTACHED");
        String handle = a.expect("export " + id, "HANDLE");
        String tokenB = a.expect("token " + id + " " + addressB + " READ,WRITE,ATOMIC", "TOKEN");
        long proxy = importAndAttach(b, handle, tokenB, 0); // the first mapping
        assertEquals("VALUE 0", b.request("get-long " + proxy + " 64")); // its line cached
        b.expect("attach " + proxy, "ATTACHED"); // the second mapping, on top
        assertEquals("OK", b.request("put-long " + proxy + " 64 42")); // through the second, then wmb
        b.expect("detach " + proxy, "DETACHED"); // the first mapping on top again
        assertEquals("VALUE 42", b.request("get-long " + proxy + " 64"), "rmb, then a load through the first mapping");
    }

    /**
     * Each cached attach is a cache with a record at the home's directory; a clean detach sends
     * FORGET, so a context that attaches and detaches an import many times leaves no record
     * behind (before 2026-11-29 the home kept one per attach until the context ended).
     */
    @Test
    void shouldLeaveNoRecordAtTheHomeAfterManyCleanAttachesAndDetaches() throws InterruptedException {
        long id = Long.parseLong(a.expect("create " + 4 * PAGE, "SEGMENT"));
        String handle = a.expect("export " + id, "HANDLE");
        String tokenB = a.expect("token " + id + " " + addressB + " READ,WRITE,ATOMIC", "TOKEN");
        long proxy = Long.parseLong(b.expect("import " + handle, "PROXY").split(" ")[0]);
        b.expect("set-token " + proxy + " " + tokenB, "OK");
        long caches = CmiAdmFigures.dataplane(nodeA, "directory_caches");
        long forgets = CmiAdmFigures.dataplane(nodeA, "requests_forget");
        int rounds = 20;
        for (int i = 0; i < rounds; i++) {
            b.expect("attach " + proxy, "ATTACHED");
            assertEquals("OK", b.request("put-long " + proxy + " 64 " + i)); // a fill, a store, wmb
            assertEquals("VALUE " + i, b.request("get-long " + proxy + " 64"));
            b.expect("detach " + proxy, "DETACHED");
        }
        long end = System.nanoTime() + 20_000_000_000L; // FORGET is not waited for: its count may lag
        while (CmiAdmFigures.dataplane(nodeA, "requests_forget") < forgets + rounds && System.nanoTime() < end) {
            Thread.sleep(20);
        }
        assertEquals(forgets + rounds, CmiAdmFigures.dataplane(nodeA, "requests_forget"), "one FORGET per detach");
        assertEquals(caches, CmiAdmFigures.dataplane(nodeA, "directory_caches"), "every detached cache forgotten");
        a.expect("attach " + id + " READ", "ATTACHED");
        assertEquals(String.valueOf(rounds - 1), a.expect("get-long " + id + " 64", "VALUE"), "the last store reached the home");
    }

    @Test
    void shouldNeverLetBothSidesOfStoreBufferingWithMbSeeZero() {
        Shared s = fresh(4 * PAGE, false, 0);
        b.send("sb " + s.onB + " 0 " + SB_TRIALS);
        c.send("sb " + s.onC + " 1 " + SB_TRIALS);
        String rb = b.awaitReply(Duration.ofSeconds(200));
        String rc = c.awaitReply(Duration.ofSeconds(200));
        assertTrue(rb.startsWith("SB " + SB_TRIALS), () -> "B: " + rb);
        assertTrue(rc.startsWith("SB " + SB_TRIALS), () -> "C: " + rc);
        BitSet zeroB = bits(rb);
        BitSet zeroC = bits(rc);
        int onlyB = zeroB.cardinality();
        int onlyC = zeroC.cardinality();
        zeroB.and(zeroC);
        System.out.println("store buffering with mb, " + SB_TRIALS + " trials: B saw 0 in " + onlyB + ", C in " + onlyC
            + ", both in " + zeroB.cardinality());
        assertEquals(0, zeroB.cardinality(), "trials where both sides saw zero");
    }

    private static BitSet bits(String reply) {
        String[] p = reply.split(" ");
        return p.length < 3 ? new BitSet() : BitSet.valueOf(HexFormat.of().parseHex(p[2]));
    }

    @Test
    void shouldKeepEveryByteWhenTwoNodesWriteAlternateBytesOfOneLine() {
        Shared s = fresh(PAGE, false, 0);
        int rounds = 200;
        b.send("fs " + s.onB + " 0 1024 " + rounds);
        c.send("fs " + s.onC + " 1 1024 " + rounds);
        assertEquals("DONE " + rounds, b.awaitReply(Duration.ofSeconds(100)));
        assertEquals("DONE " + rounds, c.awaitReply(Duration.ofSeconds(100)));
        assertEquals("VERIFIED", a.request("check-bytes " + s.onA + " 1024 " + (byte) rounds));
        assertEquals("VERIFIED", b.request("check-bytes " + s.onB + " 1024 " + (byte) rounds));
        assertEquals("VERIFIED", c.request("check-bytes " + s.onC + " 1024 " + (byte) rounds));
    }

    @Test
    void shouldReadBackTheLastValueWrittenWhenTheWorkingSetIsManyTimesTheCache() {
        long size = 256 * 1024;
        Shared s = fresh(size, false, 4 * 1024);
        assertEquals("VERIFIED", b.request("evict " + s.onB + " " + size + " 3", Duration.ofSeconds(100)));
        assertEquals("VERIFIED", a.request("evict-check " + s.onA + " " + size + " 3"));
        assertEquals("VERIFIED", c.request("evict-check " + s.onC + " " + size + " 3"));
    }

    @Test
    void shouldWriteBackTheThreadsStoresAtFlushFb() {
        Shared s = fresh(16 * PAGE, false, 0);
        assertEquals("FLUSHED", b.request("epoch-flush " + s.onB + " " + 8 * PAGE));
        assertEquals("11", a.expect("get-long " + s.onA + " 0", "VALUE"));
        assertEquals("12", a.expect("get-long " + s.onA + " 8", "VALUE"), "close_fb flushes too");
    }

    @Test
    void shouldWriteBackADenseMegabyteInLargeFramesAndKeepTheNeighboursBytes() {
        // Frames of up to 516 KiB (the home's input buffer grows for them), runs merged across
        // lines, and partly stored lines at both ends whose other bytes another node wrote.
        Shared s = fresh(2L << 20, false, 0);
        long start = 1024 + 3;
        int length = 1 << 20;
        assertEquals("OK", c.request("fill " + s.onC + " 1024 3 5"));
        assertEquals("OK", c.request("fill " + s.onC + " " + (start + length) + " 5 5"));
        assertEquals("OK", b.request("fill " + s.onB + " " + start + " " + length + " 9"));
        assertEquals("VERIFIED", a.request("check " + s.onA + " " + start + " " + length + " 9"));
        assertEquals("VERIFIED", a.request("check " + s.onA + " 1024 3 5"), "bytes before the run, another node's");
        assertEquals("VERIFIED", a.request("check " + s.onA + " " + (start + length) + " 5 5"), "bytes after the run");
        assertEquals("VERIFIED", c.request("check " + s.onC + " " + start + " " + length + " 9"));
    }

    /**
     * {@code CMI_ERR_STORE} (libcmi {@code flush_fb}; cache.md "Releases"): a store sits in a
     * cached line whose token its owner deleted, so writing it back is refused. Every release
     * that writes it back throws STORE, and the store does not land: {@code wmb}, {@code mb},
     * {@code cflush}, {@code atm_cas} (a release before the CAS), {@code flush_fb} and
     * {@code close_fb} (which closes the epoch all the same). The importer's cache has its
     * background thread held off ({@link #heldClient}), so that the release under test is the
     * one that meets the refusal.
     */
    @Test
    void shouldThrowStoreFromEveryReleaseWhoseWriteBackIsRefused() throws IOException {
        ClientProcess held = heldClient();
        String heldAddress = held.expect("node", "NODE");
        String[] releases = {"wmb", "mb", "cflush-one ID 8", "cas ID 64 0 1", "flush-fb", "close-fb"};
        for (String release : releases) {
            long id = Long.parseLong(a.expect("create " + PAGE, "SEGMENT"));
            a.expect("attach " + id, "ATTACHED");
            String handle = a.expect("export " + id, "HANDLE");
            String token = a.expect("token " + id + " " + heldAddress + " READ,WRITE,ATOMIC", "TOKEN");
            long proxy = importAndAttach(held, handle, token, 0);
            boolean epoch = release.endsWith("-fb");
            if (epoch) {
                held.expect("open-fb", "OK");
            }
            assertEquals("VALUE 0", held.request("get-long " + proxy + " 0"), "the line is cached");
            a.expect("tok-del " + token, "OK");
            assertEquals("OK", held.request("put-long-nobarrier " + proxy + " 8 77"), release + ": the store goes to the cached line");
            String reply = held.request(release.replace("ID", Long.toString(proxy)));
            assertTrue(reply.startsWith("ERROR STORE STORE"), release + " after a refused write-back: " + reply);
            if (release.equals("close-fb")) {
                held.expect("open-fb", "OK"); // the failed close closed the epoch: a new one opens
                held.expect("close-fb", "OK");
            } else if (epoch) {
                held.expect("close-fb", "OK"); // the failed flush wrote back what it could: nothing is left
            }
            assertEquals("VALUE 0", a.request("get-long " + id + " 8"), release + ": the refused store did not land");
            held.expect("detach " + proxy, "DETACHED");
        }
    }

    /**
     * {@code CMI_EVENT_STORE_FAILURE}: a write-back no caller waits for is refused (here the
     * detach's; the background writer's and an eviction's report the same way).
     */
    @Test
    void shouldRaiseStoreFailureWhenAWriteBackNobodyWaitsForIsRefused() throws IOException {
        ClientProcess held = heldClient();
        String heldAddress = held.expect("node", "NODE");
        long id = Long.parseLong(a.expect("create " + PAGE, "SEGMENT"));
        a.expect("attach " + id, "ATTACHED");
        String handle = a.expect("export " + id, "HANDLE");
        String token = a.expect("token " + id + " " + heldAddress + " READ,WRITE,ATOMIC", "TOKEN");
        long proxy = importAndAttach(held, handle, token, 0);
        assertEquals("VALUE 0", held.request("get-long " + proxy + " 0"), "the line is cached");
        a.expect("tok-del " + token, "OK");
        assertEquals("OK", held.request("put-long-nobarrier " + proxy + " 8 77"));
        held.expect("detach " + proxy, "DETACHED");
        String events = held.request("events-until STORE_FAILURE 10000");
        assertTrue(events.startsWith("EVENTS") && events.endsWith("STORE_FAILURE"), events);
        assertEquals("VALUE 0", a.request("get-long " + id + " 8"), "the refused store did not land");
    }

    /**
     * A client on B whose cache's background thread does nothing for ten minutes (no write-back,
     * refresh or report): what the tests do to its cache happens only in the calls they make.
     */
    private static synchronized ClientProcess heldClient() throws IOException {
        if (held == null) {
            held = cluster.clients(List.of("-Dsoftcmi.cache.writeBackMs=600000", "-Dsoftcmi.cache.refreshMs=600000",
                "-Dsoftcmi.cache.reportMs=600000"), nodeB).get(0);
        }
        return held;
    }

    @Test
    void shouldWriteBackTheLineAtCflush() {
        Shared s = fresh(4 * PAGE, false, 0);
        assertEquals("OK", b.request("cflush " + s.onB + " 2048 77"));
        assertEquals("77", a.expect("get-long " + s.onA + " 2048", "VALUE"));
    }

    @Test
    void shouldCountExactlyWithAtmCasNextToCachedStores() {
        Shared s = fresh(2 * PAGE, false, 0);
        long n = 2_000;
        b.send("cas-stores " + s.onB + " 0 " + n + " 1024 2");
        c.send("cas-stores " + s.onC + " 0 " + n + " 1024 2");
        assertEquals("DONE " + n, b.awaitReply(Duration.ofSeconds(150)));
        assertEquals("DONE " + n, c.awaitReply(Duration.ofSeconds(150)));
        assertEquals(String.valueOf(2 * n), a.expect("get-long " + s.onA + " 0", "VALUE"));
        assertEquals(String.valueOf(2 * n), b.expect("get-long " + s.onB + " 0", "VALUE"));
    }

    @Test
    void shouldSendEveryStoreOfAWriteThroughImportToTheHome() {
        Shared s = fresh(2 * PAGE, true, 0);
        for (int i = 1; i <= 20; i++) {
            b.expect("put-long-nobarrier " + s.onB + " 64 " + i, "OK");
            assertEquals(String.valueOf(i), a.expect("get-long " + s.onA + " 64", "VALUE"));
            assertEquals(String.valueOf(i), c.expect("get-long-nobarrier " + s.onC + " 64", "VALUE"));
        }
    }

    @Test
    void shouldMakeStoresVisibleWithoutBarriersWithinTheBackgroundDelay() {
        Shared s = fresh(2 * PAGE, false, 0);
        assertEquals("0", c.expect("get-long-nobarrier " + s.onC + " 128", "VALUE")); // now cached on C
        b.expect("put-long-nobarrier " + s.onB + " 128 5", "OK");
        Deadline d = Deadline.in(Duration.ofSeconds(10));
        String seen = "0";
        while (!seen.equals("5") && !d.expired()) {
            seen = c.expect("get-long-nobarrier " + s.onC + " 128", "VALUE");
        }
        assertEquals("5", seen, "background write-back and refresh make the store visible");
    }
}
