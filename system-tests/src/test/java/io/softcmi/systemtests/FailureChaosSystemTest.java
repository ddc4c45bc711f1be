package io.softcmi.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.ExportAttr;
import io.softcmi.cmi.NodeAddress;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The chaos test of issue 8: three daemons, each homing a write-through segment and reached by
 * its peers only through a {@link FaultProxy}; one worker process per node runs
 * {@link ChaosLoad} (remote writes, reads, {@code atmCas} counters on all three segments) while
 * faults are injected at random for a bounded time — a daemon hung with {@code SIGSTOP} and
 * continued, the connections to a daemon cut and healed. Afterwards every acknowledged write must
 * be at its home (the slot holds the last acknowledged value or a later one the writer tried),
 * every counter must equal the acknowledged increments plus at most the doubtful ones, and no
 * worker may have read a value older than its own acknowledged write. The seed is printed.
 */
@Timeout(240)
class FailureChaosSystemTest {
    private static final HexFormat HEX = HexFormat.of();
    private static final long LOAD_MILLIS = 12_000;
    private static final long FAULT_MILLIS = 9_000;

    @RegisterExtension
    final SystemTestResources resources = SystemTestResources.perTest();

    @Test
    void shouldKeepEveryAcknowledgedWriteAndExactCountersUnderRandomHangsAndCuts() throws Exception {
        long seed = Long.getLong("softcmi.chaos.seed", System.nanoTime());
        System.out.println("CHAOS seed " + seed + " (rerun with -Dsoftcmi.chaos.seed=" + seed + ")");
        Random random = new Random(seed);
        ClusterNodes cluster = ClusterNodes.create(resources);
        List<FaultProxy> proxies = new ArrayList<>();
        List<NodeProcess> nodes = new ArrayList<>();
        try {
            for (String name : List.of("A", "B", "C")) {
                FaultProxy p = resources.own(new FaultProxy());
                proxies.add(p);
                NodeProcess n = cluster.startWithOptions(name, "--advertise", "127.0.0.1:" + p.port(), "--suspect-after", "500",
                    "--dead-after", "60000");
                p.target(FailureScenarios.listenPort(n));
                nodes.add(n);
            }
            List<ContextThread> creators = new ArrayList<>();
            List<CmiSegment> segments = new ArrayList<>();
            List<String> handles = new ArrayList<>();
            List<String> tokens = new ArrayList<>();
            for (NodeProcess n : nodes) {
                ContextThread creator = cluster.context(n);
                creators.add(creator);
                creator.run(c -> {
                    CmiSegment s = c.segGet(4096, Set.of());
                    segments.add(s);
                    handles.add(HEX.formatHex(c.segExp(s, Set.of(ExportAttr.WRITE_THROUGH)).toBytes()));
                    tokens.add(HEX.formatHex(c.tokNew(s, NodeAddress.ANY, EnumSet.allOf(Access.class)).toBytes()));
                });
            }
            List<ClientProcess> workers = cluster.clients(nodes.toArray(NodeProcess[]::new));
            for (int w = 0; w < workers.size(); w++) {
                workers.get(w).send("chaos " + String.join(",", handles) + " " + String.join(",", tokens) + " " + w + " "
                    + LOAD_MILLIS);
            }
            int faults = injectFaults(random, nodes, proxies);
            List<String> replies = new ArrayList<>();
            for (ClientProcess w : workers) {
                replies.add(w.awaitReply(Duration.ofSeconds(90)));
            }
            System.out.println("CHAOS " + faults + " faults; replies " + replies);
            for (int i = 0; i < segments.size(); i++) {
                CmiSegment s = segments.get(i);
                int seg = i;
                long[] words = creators.get(i).call(c -> {
                    CmiMapping m = c.segAt(s, Set.of());
                    long[] out = new long[1 + workers.size()];
                    for (int k = 0; k < out.length; k++) {
                        out[k] = m.getLong(8L * k);
                    }
                    return out;
                });
                long acked = 0;
                long doubtful = 0;
                for (int w = 0; w < workers.size(); w++) {
                    String reply = replies.get(w);
                    assertTrue(reply.startsWith("CHAOS "), "worker " + w + ": " + reply);
                    String[] f = reply.split(" ")[1 + seg].split(":");
                    long lastAcked = Long.parseLong(f[0]);
                    long lastTried = Long.parseLong(f[1]);
                    acked += Long.parseLong(f[2]);
                    doubtful += Long.parseLong(f[3]);
                    long atHome = words[1 + w];
                    assertTrue(atHome >= lastAcked && atHome <= lastTried, "segment " + seg + ", worker " + w + ": home holds "
                        + atHome + ", acknowledged " + lastAcked + ", tried up to " + lastTried + " (seed " + seed + ")");
                }
                assertTrue(words[0] >= acked && words[0] <= acked + doubtful, "counter of segment " + seg + " is " + words[0]
                    + ", acknowledged increments " + acked + ", doubtful " + doubtful + " (seed " + seed + ")");
            }
            assertTrue(faults > 0);
            assertEquals(3, replies.size());
        } finally {
            for (NodeProcess n : nodes) {
                signal("CONT", n.pid());
            }
            for (FaultProxy p : proxies) {
                p.heal();
            }
        }
    }

    /** Random hangs and cuts, one at a time, for {@link #FAULT_MILLIS}; each lasts 0.3 to 1.5 s. */
    private static int injectFaults(Random random, List<NodeProcess> nodes, List<FaultProxy> proxies)
            throws IOException, InterruptedException {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(FAULT_MILLIS);
        int faults = 0;
        Thread.sleep(1_000); // the load is under way
        while (System.nanoTime() < end) {
            int victim = random.nextInt(nodes.size());
            long length = 300 + random.nextInt(1_200);
            if (random.nextBoolean()) {
                signal("STOP", nodes.get(victim).pid());
                Thread.sleep(length);
                signal("CONT", nodes.get(victim).pid());
            } else {
                proxies.get(victim).cut();
                Thread.sleep(length);
                proxies.get(victim).heal();
            }
            faults++;
            Thread.sleep(200 + random.nextInt(500));
        }
        return faults;
    }

    private static void signal(String sig, long pid) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("kill", "-" + sig, Long.toString(pid)).redirectErrorStream(true).start();
        p.waitFor(10, TimeUnit.SECONDS);
    }
}
