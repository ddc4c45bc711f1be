package io.softcmi.samples;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiAccessException;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.CmiVersion;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.RemoteSegmentHandle;
import io.softcmi.node.NodeConfig;
import io.softcmi.node.NodeDaemon;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Three nodes on loopback sharing a cluster key, and one context on each: node 1 exports a
 * segment and makes tokens; nodes 2 and 3 import it (handles and tokens travel as bytes),
 * read and write it; a revoked token's next access throws; and all three increment one counter
 * with {@code atm_cas} at the home, ending exact.
 *
 * <p>The three nodes are full daemons (control socket, TCP listener, own shared-memory
 * directory) run inside this JVM for the demo; in production each is a {@code cmid}.
 */
public final class ThreeNodeCluster {
    private static final int INCREMENTS = 2_000;

    private ThreeNodeCluster() {
    }

    /**
     * Runs the demo.
     *
     * @param out where to print
     * @return the final counter value (3 x {@value #INCREMENTS} when all went well)
     */
    public static long run(PrintStream out) {
        List<NodeDaemon> nodes = new ArrayList<>();
        List<ExecutorService> threads = new ArrayList<>();
        Path dir = null;
        try {
            dir = SampleDirs.privateTempDir("softcmi-demo-cluster-");
            Path key = SampleDirs.newClusterKey(dir);
            for (int i = 1; i <= 3; i++) {
                NodeDaemon n = NodeDaemon.start(new NodeConfig().directory(dir.resolve("node" + i)).name("demo-node" + i)
                    .listen("127.0.0.1", 0).clusterKeyFile(key).shmDirectory(Path.of("/dev/shm",
                        "softcmi-demo-" + ProcessHandle.current().pid() + "-" + i)));
                nodes.add(n);
                threads.add(Executors.newSingleThreadExecutor());
                out.println("node " + i + " up at " + n.engine().address());
            }
            CmiContext[] ctx = new CmiContext[3];
            for (int i = 0; i < 3; i++) {
                Path nodeDir = nodes.get(i).config().directory();
                ctx[i] = on(threads.get(i), () -> {
                    synchronized (ThreeNodeCluster.class) {
                        System.setProperty("softcmi.node", nodeDir.toString());
                        try {
                            return Cmi.init(new CmiVersion(1, 1));
                        } finally {
                            System.clearProperty("softcmi.node");
                        }
                    }
                });
            }
            long result = exchange(out, threads, ctx);
            for (int i = 0; i < 3; i++) {
                CmiContext c = ctx[i];
                on(threads.get(i), () -> {
                    c.fini();
                    return null;
                });
            }
            return result;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            threads.forEach(ExecutorService::shutdownNow);
            nodes.forEach(NodeDaemon::close);
            if (dir != null) {
                SampleDirs.deleteQuietly(dir);
            }
        }
    }

    private static long exchange(PrintStream out, List<ExecutorService> threads, CmiContext[] ctx) {
        CmiContext home = ctx[0];
        // Node 1: allocate, attach, export, and make a token for each of the other nodes.
        Object[] exported = on(threads.get(0), () -> {
            CmiSegment seg = home.segGet(1 << 20, Set.of());
            CmiMapping m = home.segAt(seg, Set.of());
            home.enable(true); // cmi_enb: this thread loads and stores CMI segments
            m.put(0, "hello from node 1".getBytes(java.nio.charset.StandardCharsets.UTF_8), 0, 17);
            RemoteSegmentHandle h = home.segExp(seg, Set.of());
            CmiToken t2 = home.tokNew(seg, ctx[1].nodeAddress(), EnumSet.allOf(Access.class));
            CmiToken t3 = home.tokNew(seg, NodeAddress.ANY, EnumSet.allOf(Access.class));
            out.println("node 1: segment " + seg.id() + " exported; handle " + h.toBytes().length + " bytes, tokens "
                + t2.toBytes().length + " bytes (one for node 2 only, one for any node)");
            return new Object[] {h.toBytes(), t2.toBytes(), t3.toBytes(), t2, m};
        });
        CmiMapping[] remote = new CmiMapping[3];
        for (int i = 1; i <= 2; i++) {
            int n = i;
            CmiContext c = ctx[i];
            remote[i] = on(threads.get(i), () -> {
                CmiSegment proxy = c.segImp(RemoteSegmentHandle.fromBytes((byte[]) exported[0]));
                c.segSetToken(proxy, CmiToken.fromBytes((byte[]) exported[n]));
                c.enable(true);
                CmiMapping m = c.segAt(proxy, Set.of());
                byte[] b = new byte[17];
                m.get(0, b, 0, b.length);
                out.println("node " + (n + 1) + ": imported as proxy " + proxy.id() + ", reads \""
                    + new String(b, java.nio.charset.StandardCharsets.UTF_8) + "\"");
                return m;
            });
        }
        // Revoke node 2's token: its next access that reaches the home fails with CMI_ERROR_TOKEN
        // (the import is cached, so that is the next acquire, miss or write-back; the rmb below
        // is such an acquire); node 3 is unaffected.
        on(threads.get(0), () -> {
            home.tokDel((CmiToken) exported[3]);
            return null;
        });
        out.println("node 1: revoked node 2's token");
        on(threads.get(1), () -> {
            try {
                ctx[1].rmb();
                remote[1].getLong(0);
                throw new IllegalStateException("a revoked token still worked");
            } catch (CmiAccessException e) {
                out.println("node 2: access after revocation -> " + e.accessError().specName() + " (segment "
                    + e.segmentId() + ", offset " + e.offset() + ")");
            }
            ctx[1].segSetToken(remote[1].segment(), CmiToken.fromBytes((byte[]) exported[2]));
            out.println("node 2: set the any-node token instead");
            return null;
        });
        // All three nodes increment one counter at the home with atm_cas.
        CmiMapping local = (CmiMapping) exported[4];
        remote[0] = local;
        List<Future<Void>> done = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            CmiContext c = ctx[i];
            CmiMapping m = remote[i];
            done.add(threads.get(i).submit(() -> {
                for (int k = 0; k < INCREMENTS; k++) {
                    long v;
                    do {
                        v = c.atmCas(m, 4096, 0, 0);
                    } while (c.atmCas(m, 4096, v, v + 1) != v);
                }
                return null;
            }));
        }
        for (Future<Void> f : done) {
            get(f);
        }
        long total = on(threads.get(0), () -> local.getLong(4096));
        out.println("counter after 3 nodes x " + INCREMENTS + " atm_cas increments: " + total);
        return total;
    }

    private static <T> T on(ExecutorService thread, Callable<T> work) {
        return get(thread.submit(work));
    }

    private static <T> T get(Future<T> f) {
        try {
            return f.get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("a node did not answer within 60 s", e);
        }
    }
}
