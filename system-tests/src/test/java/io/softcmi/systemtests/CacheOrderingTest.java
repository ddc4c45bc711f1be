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
 * Ordering litmus tests over cached imports across three daemons (issue 7 "Tests",
 * docs/cache.md): CoRR, IRIW with {@code mb}, and a random mix of loads, stores, barriers and
 * {@code atm_cas} from processes on three nodes checked against a sequential model of the
 * release-consistency rules ({@link MixModel}). Every segment is exported without
 * {@code WRITE_THROUGH}, so its imports are cached. Trials run in batches inside the worker
 * processes ({@link CacheOrdering}, {@link RandomMix}); the test counts and asserts outcomes.
 *
 * <p>The random mix's seed is printed, and can be set with {@code -Dsoftcmi.litmus.seed=N}.
 */
@Timeout(300)
class CacheOrderingTest {
    private static final int CORR_READS = 10_000;
    private static final int IRIW_TRIALS = 10_000;
    private static final int MIX_OPS = 15_000;
    private static final long DEFAULT_SEED = 20261123L;
    private static final long PAGE = 4096;
    private static final String RIGHTS = "READ,WRITE,ATOMIC";

    @RegisterExtension
    static final SystemTestResources RESOURCES = SystemTestResources.perClass();

    private static ClientProcess a;
    private static ClientProcess b;
    private static ClientProcess c;
    private static ClientProcess b2;
    private static ClientProcess c2;

    @BeforeAll
    @Timeout(120)
    static void startCluster() throws IOException {
        ClusterNodes cluster = ClusterNodes.create(RESOURCES);
        List<NodeProcess> nodes = cluster.start("A", "B", "C");
        List<ClientProcess> workers = cluster.clients(nodes.get(0), nodes.get(1), nodes.get(2), nodes.get(1), nodes.get(2));
        a = workers.get(0);
        b = workers.get(1);
        c = workers.get(2);
        b2 = workers.get(3);
        c2 = workers.get(4);
    }

    /** A segment created (not attached) by {@code home}, exported without WRITE_THROUGH; one token per importing node. */
    private static final class Exported {
        private final ClientProcess home;
        private final long id;
        private final String handle;
        private final java.util.Map<String, String> tokens = new java.util.HashMap<>();

        Exported(ClientProcess home, long id, String handle) {
            this.home = home;
            this.id = id;
            this.handle = handle;
        }

        /** Imports it into {@code w} (with the token for w's node) and attaches it there. @return w's proxy id */
        long importInto(ClientProcess w) {
            String token = tokens.computeIfAbsent(w.expect("node", "NODE"),
                node -> home.expect("token " + id + " " + node + " " + RIGHTS, "TOKEN"));
            long proxy = Long.parseLong(w.expect("import " + handle, "PROXY").split(" ")[0]);
            w.expect("set-token " + proxy + " " + token, "OK");
            w.expect("attach " + proxy, "ATTACHED");
            return proxy;
        }

        /** Attaches it on its home, read-only ({@code readOnly}: no home-local writer) or writable. @return its id */
        long attachAtHome(boolean readOnly) {
            home.expect("attach " + id + (readOnly ? " READ" : ""), "ATTACHED");
            return id;
        }
    }

    private static Exported export(ClientProcess home, long size) {
        long id = Long.parseLong(home.expect("create " + size, "SEGMENT"));
        return new Exported(home, id, home.expect("export " + id, "HANDLE"));
    }

    /**
     * CoRR: a writer on B stores 1, 2, 3, ... to two words of a segment homed on A and two of
     * one homed on C, with wmb after each round. Readers on A and C read those four words, half
     * after an rmb and half without any barrier, each reading one segment through its cached
     * import and the other through a read-only attach at its home (and storing now and then to
     * a word of its own in the line of a word the writer writes). No read may return an older
     * value than an earlier read of the same word.
     */
    @Test
    void shouldNeverReadAnOlderValueAfterANewerOneOfTheSameWord() {
        Exported onA = export(a, PAGE);
        Exported onC = export(c, PAGE);
        Exported control = export(b, PAGE);
        String writerIds = onA.importInto(b) + " " + onC.importInto(b) + " " + control.attachAtHome(false);
        String readerA = onA.attachAtHome(true) + " " + onC.importInto(a) + " " + control.importInto(a);
        String readerC = onA.importInto(c) + " " + onC.attachAtHome(true) + " " + control.importInto(c);
        a.send("corr-read " + readerA + " 1 1 " + CORR_READS + " 11");
        c.send("corr-read " + readerC + " 0 0 " + CORR_READS + " 13");
        b.send("corr-write " + writerIds + " 2");
        String ra = a.awaitReply(Duration.ofSeconds(150));
        String rc = c.awaitReply(Duration.ofSeconds(150));
        String rb = b.awaitReply(Duration.ofSeconds(30));
        System.out.println("CoRR: writer " + rb + "; reader A " + ra + "; reader C " + rc
            + " (barrierReads plainReads changes malformed violations ownErrors)");
        assertTrue(rb.startsWith("DONE "), () -> "writer: " + rb);
        long writes = Long.parseLong(rb.split(" ")[1]);
        for (String r : List.of(ra, rc)) {
            assertTrue(r.startsWith("CORR "), () -> "reader: " + r);
            String[] f = r.split(" ");
            assertTrue(Long.parseLong(f[1]) >= CORR_READS, () -> "reads after rmb: " + r);
            assertTrue(Long.parseLong(f[2]) >= CORR_READS, () -> "reads without a barrier: " + r);
            assertEquals(0, Long.parseLong(f[5]), () -> "reads older than an earlier read (CoRR): " + r);
            assertEquals(0, Long.parseLong(f[4]), () -> "values never written there: " + r);
            assertEquals(0, Long.parseLong(f[6]), () -> "own stores not read back: " + r);
            assertTrue(Long.parseLong(f[3]) >= 100, () -> "the reads raced the writer (new values seen): " + r);
        }
        assertTrue(writes >= 100, "the writer wrote while they read");
    }

    /**
     * IRIW with mb: writers on B and C store to x and y (two segments homed on A), readers on C
     * (x, mb, y) and B (y, mb, x). Trials come in batches of {@value CacheOrdering#IRIW_BATCH},
     * each trial with its own x and y in lines of their own, the four parties meeting at an
     * atm_cas barrier before each batch; batch {@code n} writes {@code n}. Reader 0 seeing x new
     * and y old while reader 1 sees y new and x old would mean they disagree on the order of the
     * two writes: forbidden.
     */
    @Test
    void shouldNeverLetTwoReadersDisagreeOnTheOrderOfIndependentWritesWithMb() {
        Exported sx = export(a, CacheOrdering.IRIW_SIZE);
        Exported sy = export(a, CacheOrdering.IRIW_SIZE);
        String idsB = sx.importInto(b) + " " + sy.importInto(b);
        String idsC = sx.importInto(c) + " " + sy.importInto(c);
        String idsC2 = sx.importInto(c2) + " " + sy.importInto(c2);
        String idsB2 = sx.importInto(b2) + " " + sy.importInto(b2);
        c2.send("iriw-read " + idsC2 + " 0 " + IRIW_TRIALS);
        b2.send("iriw-read " + idsB2 + " 1 " + IRIW_TRIALS);
        b.send("iriw-write " + idsB + " 0 " + IRIW_TRIALS);
        c.send("iriw-write " + idsC + " 1 " + IRIW_TRIALS);
        String r0 = c2.awaitReply(Duration.ofSeconds(150));
        String r1 = b2.awaitReply(Duration.ofSeconds(150));
        String wx = b.awaitReply(Duration.ofSeconds(30));
        String wy = c.awaitReply(Duration.ofSeconds(30));
        assertEquals("DONE " + IRIW_TRIALS, wx, "writer of x");
        assertEquals("DONE " + IRIW_TRIALS, wy, "writer of y");
        for (String r : List.of(r0, r1)) {
            assertTrue(r.startsWith("IRIW " + IRIW_TRIALS + " "), () -> "reader: " + r);
            assertEquals("0", r.split(" ")[4], () -> "values malformed or from a later trial: " + r);
        }
        long[] outcomes = new long[16];
        BitSet[] bits = {bits(r0, 2), bits(r0, 3), bits(r1, 2), bits(r1, 3)};
        for (int t = 0; t < IRIW_TRIALS; t++) {
            int o = 0;
            for (BitSet s : bits) {
                o = o << 1 | (s.get(t) ? 1 : 0);
            }
            outcomes[o]++;
        }
        StringBuilder shown = new StringBuilder();
        for (int o = 0; o < 16; o++) {
            if (outcomes[o] > 0) {
                shown.append(String.format(" x%dy%d/y%dx%d=%d", o >> 3 & 1, o >> 2 & 1, o >> 1 & 1, o & 1, outcomes[o]));
            }
        }
        System.out.println("IRIW with mb, " + IRIW_TRIALS + " trials (1 = the trial's value seen; reader 0 reads x then y,"
            + " reader 1 y then x):" + shown);
        assertEquals(0, outcomes[0b1010], "readers disagreeing on the order of the writes (x new, y old / y new, x old)");
        assertEquals(IRIW_TRIALS, java.util.Arrays.stream(outcomes).sum());
    }

    private static BitSet bits(String reply, int field) {
        String f = reply.split(" ")[field];
        return f.equals("-") ? new BitSet() : BitSet.valueOf(HexFormat.of().parseHex(f));
    }

    /**
     * A random mix of loads, stores, wmb, rmb, mb and atm_cas from one process on each node over
     * three segments, one homed on each node ({@link MixPlan}: segment 0 written by its home's
     * process through a writable attach, segments 1 and 2 written only through cached imports
     * and read at their homes through read-only attaches), checked as it runs against
     * {@link MixModel}, then a final check after every process published and met the others:
     * every word holds its writer's last value and the atm_cas counters are exact.
     */
    @Test
    void shouldObeyTheReleaseConsistencyModelInARandomMixOnThreeNodes() {
        long seed = Long.getLong("softcmi.litmus.seed", DEFAULT_SEED);
        System.out.println("random mix: seed " + seed + " (set it with -Dsoftcmi.litmus.seed=" + seed + ")");
        List<ClientProcess> procs = List.of(a, b, c);
        Exported[] segments = new Exported[3];
        for (int s = 0; s < 3; s++) {
            segments[s] = export(procs.get(s), MixPlan.SEGMENT_SIZE);
        }
        String[] ids = new String[3];
        for (int p = 0; p < 3; p++) {
            StringBuilder sb = new StringBuilder();
            for (int s = 0; s < 3; s++) {
                sb.append(' ').append(s == p ? segments[s].attachAtHome(s != 0) : segments[s].importInto(procs.get(p)));
            }
            ids[p] = sb.toString();
        }
        for (int p = 0; p < 3; p++) {
            procs.get(p).send("mix " + seed + " " + MIX_OPS + " " + p + ids[p]);
        }
        long loads = 0;
        for (int p = 0; p < 3; p++) {
            String r = procs.get(p).awaitReply(Duration.ofSeconds(150));
            int who = p;
            System.out.println("random mix, process " + p + ": " + r + " (steps loads malformed violations finalErrors)");
            String why = "process " + who + ", seed " + seed + " (-Dsoftcmi.litmus.seed=" + seed + "): " + r;
            assertTrue(r.startsWith("MIX "), why);
            String[] f = r.split(" ");
            assertEquals(MIX_OPS + 1, Long.parseLong(f[1]), why);
            assertEquals(0, Long.parseLong(f[4]), () -> "violations of the model, " + why);
            assertEquals(0, Long.parseLong(f[3]), () -> "values never written there, " + why);
            assertEquals(0, Long.parseLong(f[5]), () -> "final values or counters wrong, " + why);
            loads += Long.parseLong(f[2]);
        }
        assertTrue(loads >= 10_000, "loads checked: " + loads);
    }
}
