package io.softcmi.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.CmiAccessError;
import io.softcmi.cmi.CmiAccessException;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.ExportAttr;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.RemoteSegmentHandle;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The remote data path at scale and hardened (issue 6): many contexts over several processes on
 * one home with exact results and a bounded number of daemon threads; a node ticket that expired
 * is refreshed when a later connection is opened; a home that hangs (SIGSTOP) gives TRANSIENT
 * within the reconfiguration timeout, while another home stays reachable from the same context.
 */
@Timeout(240)
class DataPathScaleTest {
    private static final HexFormat HEX = HexFormat.of();
    private static final int PROCESSES = 4;
    private static final int CONTEXTS_PER_PROCESS = 16;
    private static final long LOAD_MILLIS = 3_000;
    /** The home daemon's JVM threads may not grow with its data connections (64 here): one I/O loop per four cores. */
    private static final int MAX_HOME_THREADS = 48;

    @RegisterExtension
    static final SystemTestResources RESOURCES = SystemTestResources.perClass();

    private static ClusterNodes cluster;
    private static NodeProcess home;
    private static NodeProcess clients;
    private static NodeProcess shortTickets;

    @BeforeAll
    @Timeout(90)
    static void startCluster() throws IOException {
        cluster = ClusterNodes.create(RESOURCES);
        List<NodeProcess> nodes = cluster.start("A", "B");
        home = nodes.get(0);
        clients = nodes.get(1);
        shortTickets = cluster.startWithOptions("C", "--ticket-lifetime", "1");
    }

    private record Shared(CmiSegment segment, byte[] handle, byte[] token) {
    }

    /** Exports write-through: these tests are about the data path, every access must reach the home. */
    private static Shared export(ContextThread owner, long size) {
        return owner.call(c -> {
            CmiSegment s = c.segGet(size, Set.of());
            byte[] h = c.segExp(s, Set.of(ExportAttr.WRITE_THROUGH)).toBytes();
            byte[] t = c.tokNew(s, NodeAddress.ANY, EnumSet.allOf(Access.class)).toBytes();
            return new Shared(s, h, t);
        });
    }

    private static CmiMapping importAndAttach(CmiContext c, Shared s) {
        CmiSegment p = c.segImp(RemoteSegmentHandle.fromBytes(s.handle()));
        c.segSetToken(p, CmiToken.fromBytes(s.token()));
        c.enable(true);
        return c.segAt(p, Set.of());
    }

    @Test
    void shouldServe64ContextsOverSeveralProcessesWithExactCountersValidReadsAndBoundedThreads() throws Exception {
        int maxThreads = mixedLoad(home, PROCESSES, CONTEXTS_PER_PROCESS, LOAD_MILLIS);
        assertTrue(maxThreads > 0 && maxThreads <= MAX_HOME_THREADS,
            "the home daemon ran " + maxThreads + " threads serving " + PROCESSES * CONTEXTS_PER_PROCESS + " contexts");
    }

    /**
     * A home whose I/O loops hand every connection on to the next loop at each steering check
     * ({@code -Dsoftcmi.dataPath.steer=rotate}): connections change loops hundreds of times in
     * the middle of the load, and the counter stays exact and every read valid.
     */
    @Test
    void shouldKeepCountersExactAndReadsValidWhileConnectionsMoveBetweenIoLoops() throws Exception {
        NodeProcess rotating = cluster.startIn(List.of("env", "JAVA_TOOL_OPTIONS=-Dsoftcmi.dataPath.steer=rotate"), "D",
            "--listen", "127.0.0.1:0", "--io-threads", "3");
        mixedLoad(rotating, 2, 8, 2_000);
        long moved = CmiAdmFigures.dataplane(rotating, "connections_moved");
        assertTrue(moved >= 100, "connections changed I/O loops during the load: " + moved);
    }

    /**
     * Runs {@code processes} worker processes on the clients' node, each with {@code contexts}
     * contexts doing mixed reads, writes and {@code atmCas} increments on one segment of
     * {@code target} for {@code millis}, and checks that the counter holds exactly the
     * successful increments, that no read saw a value no writer wrote and that no access failed.
     *
     * @return the most threads the home daemon ran meanwhile
     */
    private static int mixedLoad(NodeProcess target, int processes, int contexts, long millis) throws Exception {
        ContextThread owner = cluster.context(target);
        Shared s = export(owner, 4096);
        NodeProcess[] on = new NodeProcess[processes];
        java.util.Arrays.fill(on, clients);
        List<ClientProcess> workers = cluster.clients(on);
        AtomicBoolean loading = new AtomicBoolean(true);
        AtomicInteger maxThreads = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(processes + 1);
        try {
            Future<?> sampler = pool.submit(() -> {
                while (loading.get()) {
                    maxThreads.accumulateAndGet(threads(target.pid()), Math::max);
                    Thread.sleep(50);
                }
                return null;
            });
            List<Future<String>> replies = new ArrayList<>();
            for (ClientProcess w : workers) {
                replies.add(pool.submit(() -> w.request("mixed " + HEX.formatHex(s.handle()) + " " + HEX.formatHex(s.token())
                    + " " + contexts + " " + millis, Duration.ofSeconds(120))));
            }
            long increments = 0;
            long reads = 0;
            for (Future<String> f : replies) {
                String[] r = f.get(180, TimeUnit.SECONDS).trim().split(" ");
                assertEquals("MIXED", r[0], "worker reply " + String.join(" ", r));
                increments += Long.parseLong(r[1]);
                reads += Long.parseLong(r[2]);
                assertEquals(0, Long.parseLong(r[4]), "a read returned a value no writer wrote: " + String.join(" ", r));
                assertEquals(0, Long.parseLong(r[5]), "a context's access failed: " + String.join(" ", r));
            }
            loading.set(false);
            sampler.get(10, TimeUnit.SECONDS);
            long counter = owner.call(c -> {
                CmiMapping m = c.segAt(s.segment(), Set.of());
                try {
                    return m.getLong(0);
                } finally {
                    c.segDt(m);
                }
            });
            assertTrue(increments > 0 && reads > 0, "the load did no work: " + increments + " increments, " + reads + " reads");
            assertEquals(increments, counter, "every successful atmCas increment is in the counter, and nothing else");
            return maxThreads.get();
        } finally {
            loading.set(false);
            pool.shutdownNow();
        }
    }

    private static int threads(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("Threads:")) {
                return Integer.parseInt(line.substring(8).trim());
            }
        }
        return -1;
    }

    @Test
    void shouldFetchAFreshTicketWhenAHomeRefusesAnExpiredOne() throws Exception {
        Shared onA = export(cluster.context(home), 4096);
        Shared onB = export(cluster.context(clients), 4096);
        ContextThread reader = cluster.context(shortTickets);
        reader.run(c -> importAndAttach(c, onA).putLong(0, 41));
        Thread.sleep(1_500); // the context's ticket (1 s) has expired
        long v = reader.call(c -> {
            CmiMapping m = importAndAttach(c, onB); // a new data connection, to another home
            m.putLong(8, 42);
            return m.getLong(8);
        });
        assertEquals(42, v);
        ClusterNodes.awaitLog(clients, "its node ticket is not valid here", Duration.ofSeconds(10));
    }

    @Test
    void shouldGiveTransientWithinTheReconfigurationTimeoutWhenAHomeHangsWhileOtherHomesStayReachable() throws Exception {
        ContextThread owner = cluster.context(home);
        Shared onA = export(owner, 4096);
        Shared onB = export(cluster.context(clients), 4096);
        ContextThread reader = cluster.context(shortTickets);
        reader.run(c -> {
            c.ctlReconfTimeout(Duration.ofSeconds(2));
            importAndAttach(c, onA).putLong(0, 7);
            importAndAttach(c, onB).putLong(0, 8);
        });
        CmiMapping[] maps = reader.call(c -> new CmiMapping[] {importAndAttach(c, onA), importAndAttach(c, onB)});
        CmiContext ctx = reader.call(c -> c);
        signal("STOP", home.pid());
        try {
            CompletableFuture<Long> other = new CompletableFuture<>();
            Thread t = Thread.ofPlatform().start(() -> {
                ctx.iniTh(); // a second thread of the reader's context
                try {
                    ctx.enable(true);
                    Thread.sleep(300); // while the first thread waits for the hung home
                    other.complete(maps[1].getLong(0));
                } catch (Throwable e) {
                    other.completeExceptionally(e);
                } finally {
                    ctx.fini();
                }
            });
            long start = System.nanoTime();
            CmiAccessException e = assertThrows(CmiAccessException.class, () -> {
                // The reader's thread is enabled; this thread is not, so run on the reader.
                reader.run(c -> maps[0].getLong(0));
            });
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals(CmiAccessError.TRANSIENT, e.accessError());
            assertTrue(waited >= 1_500 && waited < 10_000, "TRANSIENT came after " + waited + " ms, timeout 2000 ms");
            t.join(10_000);
            assertEquals(8L, other.get(5, TimeUnit.SECONDS), "another home stays reachable while one hangs");
        } finally {
            signal("CONT", home.pid());
        }
        long after = reader.call(c -> maps[0].getLong(0));
        assertEquals(7L, after, "after the home resumes, the next access succeeds");
    }

    private static void signal(String sig, long pid) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("kill", "-" + sig, Long.toString(pid)).inheritIO().start();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0, "kill -" + sig + " " + pid);
    }
}
