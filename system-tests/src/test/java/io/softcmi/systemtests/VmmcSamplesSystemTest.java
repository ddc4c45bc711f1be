package io.softcmi.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.vmmc.samples.All2all;
import io.softcmi.vmmc.samples.BidirBandwidth;
import io.softcmi.vmmc.samples.FetchBandwidth;
import io.softcmi.vmmc.samples.Latency;
import io.softcmi.vmmc.samples.OnewayBandwidth;
import io.softcmi.vmmc.samples.PPBandwidth;
import io.softcmi.vmmc.samples.RandomAll2All;
import io.softcmi.vmmc.samples.RandomChain;
import io.softcmi.vmmc.samples.RandomOne2All;
import io.softcmi.vmmc.samples.Spawn;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The VMMC samples with the manual's command lines, run on three {@code cmid} daemons: the
 * master on node n1, its peers spawned by {@code vmmc_Spawn} on n2 and n3 (each spawned JVM joins
 * the daemon {@code VMMCHOSTS} names for its host).
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class VmmcSamplesSystemTest {
    @RegisterExtension
    static final SystemTestResources RESOURCES = SystemTestResources.perClass();
    private static final AtomicInteger RUNS = new AtomicInteger();
    private static List<NodeProcess> nodes;
    private static Path work;

    @BeforeAll
    static void startThreeDaemons() throws IOException {
        nodes = ClusterNodes.create(RESOURCES).start("n1", "n2", "n3");
        work = Files.createTempDirectory("softcmi-vmmc-");
        RESOURCES.own(() -> Files2.deleteTree(work));
    }

    /** Runs a sample as the master on n1, returns its output; checks it exits 0 and leaves no process behind. */
    private static String run(Class<?> main, String... args) throws Exception {
        return runWith(List.of(), main, args);
    }

    /** As {@link #run}, the master's JVM started with {@code jvmArgs}. */
    private static String runWith(List<String> jvmArgs, Class<?> main, String... args) throws Exception {
        String session = "s" + RUNS.incrementAndGet();
        Path out = Files.createDirectories(work.resolve(session + "-out"));
        String hosts = "n1=" + nodes.get(0).directory() + ",n2=" + nodes.get(1).directory() + ",n3=" + nodes.get(2).directory();
        Process p = ChildJvm.start(main, jvmArgs, List.of(args), Map.of(
            "VMMCSESSION", session, "VMMCHOSTS", hosts, "VMMCHOST", "n1", "VMMCSHARE", work.resolve("share").toString(),
            "VMMCOUTDIR", out.toString(), "SOFTCMI_NODE", nodes.get(0).directory().toString()));
        Path log = RESOURCES.logDir().resolve(main.getSimpleName() + "-" + session + ".log");
        OutputCapture capture = new OutputCapture(main.getSimpleName(), p.getInputStream(), log);
        try {
            boolean exited = p.waitFor(Deadline.scaled(Duration.ofSeconds(240)).toSeconds(), TimeUnit.SECONDS);
            capture.drain();
            String text = Files.readString(log);
            assertTrue(exited, main.getSimpleName() + " did not finish: " + text);
            assertEquals(0, p.exitValue(), main.getSimpleName() + " failed: " + text + peerLogs(out));
            String all = text + peerLogs(out);
            System.out.println("== " + main.getSimpleName() + " " + String.join(" ", args) + "\n" + all);
            return all;
        } finally {
            p.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }

    private static String peerLogs(Path out) throws IOException {
        StringBuilder sb = new StringBuilder();
        try (Stream<Path> s = Files.list(out)) {
            for (Path f : s.filter(f -> f.getFileName().toString().startsWith("VMMC_")).sorted().toList()) {
                sb.append("\n== ").append(f.getFileName()).append('\n').append(Files.readString(f));
            }
        }
        return sb.toString();
    }

    @Test
    void spawnRecursesOverTheHosts() throws Exception {
        String out = run(Spawn.class, "2");
        assertTrue(out.contains("spawn: level 2 on n1"), out);
        assertTrue(out.contains("spawn: level 1 on n2"), out);
        assertTrue(out.contains("spawn: level 0 on n3"), out);
        assertTrue(out.matches("(?s).*spawn: child n2\\.\\d+ at level 1 reported.*"), out);
        assertTrue(out.contains("== VMMC_n2."), out);
    }

    @Test
    void latencyPingPongsBetweenTwoNodes() throws Exception {
        String out = run(Latency.class, "1", "2000");
        assertTrue(out.matches("(?s).*latency: 1 words, 2000 iterations: round trip mean [0-9.]+ us.*"), out);
        assertTrue(out.contains("warm-up: " + Latency.MIN_WARM_UP + " untimed round trips first"), out);
        // A count set on the master reaches the peer it spawns: else one side would wait for messages never sent.
        String short_ = runWith(List.of("-D" + Latency.WARM_UP_PROPERTY + "=50"), Latency.class, "1", "300");
        assertTrue(short_.contains("warm-up: 50 untimed round trips first"), short_);
        assertTrue(short_.contains("latency: 1 words, 300 iterations"), short_);
        // The delivery time is part of a round trip: at most its 99th percentile. It may be
        // negative: a polling peer's handler can start before the master's SendDataNotify has
        // returned (seen in CI on 2026-11-28: median -0.4 us against a 12.0 us round trip).
        java.util.regex.Matcher rtt = java.util.regex.Pattern.compile("p99 ([0-9.]+) us").matcher(out);
        java.util.regex.Matcher delivery = java.util.regex.Pattern.compile(
            "delivery: from SendDataNotify returning to the peer's handler starting: median (-?[0-9.]+) us").matcher(out);
        assertTrue(rtt.find() && delivery.find(), out);
        double median = Double.parseDouble(delivery.group(1));
        assertTrue(Math.abs(median) <= Double.parseDouble(rtt.group(1)), out);
    }

    @Test
    void bandwidthFamilyPrintsACurve() throws Exception {
        for (Class<?> c : List.of(PPBandwidth.class, OnewayBandwidth.class, BidirBandwidth.class, FetchBandwidth.class)) {
            String out = run(c, "20", "1", "16384");
            assertTrue(out.contains(c.getSimpleName() + ": done"), out);
            String png = out.replaceAll("(?s).*" + c.getSimpleName() + ": curve in (\\S+).*", "$1");
            byte[] head = Arrays.copyOf(Files.readAllBytes(Path.of(png)), 8);
            assertEquals(0x89, head[0] & 0xff, "a PNG: " + png);
            assertEquals('P', head[1]);
            assertTrue(out.matches("(?s).*\\n\\s+16384\\s+65536\\s+[0-9.]+\\n.*"), out);
        }
    }

    @Test
    void bidirBandwidthSendsBothWaysForTheTimeGivenToTheMasterAndItsSpawnedPeer() throws Exception {
        String out = runWith(List.of("-Dvmmc.bandwidth.seconds=0.3"), BidirBandwidth.class, "5", "1", "2");
        assertTrue(out.contains("BidirBandwidth: done"), out);
        java.util.regex.Matcher m = java.util.regex.Pattern
            .compile("\\((\\d+) messages in ([0-9.]+) s, (\\d+) of them from the other side\\)").matcher(out);
        int sizes = 0;
        while (m.find()) {
            sizes++;
            long total = Long.parseLong(m.group(1));
            long fromPeer = Long.parseLong(m.group(3));
            assertTrue(Double.parseDouble(m.group(2)) >= 0.3, "each size lasts the time given: " + m.group());
            // The peer, spawned on n2, got the master's vmmc.* settings and sent for the time too.
            assertTrue(fromPeer > 5 && total - fromPeer > 5, "both sides sent for the time, not 5 messages: " + m.group());
        }
        assertEquals(2, sizes, out);
    }

    @Test
    void all2allPairwiseAndRandomOnThreeNodes() throws Exception {
        for (String method : List.of("pairwise", "random")) {
            String out = run(All2all.class, method, "3", "256", "50");
            assertTrue(out.matches("(?s).*all2all " + method + ": 3 processes on \\[n1\\.\\d+, n2\\.\\d+, n3\\.\\d+\\].*MB/s.*"), out);
        }
    }

    @Test
    void unexportRefusesARemoteImportersSendsAndImports() throws Exception {
        String out = run(VmmcUnexportProbe.class);
        assertTrue(out.contains("probe: master got 42"), out);
        // SendData returns once the message is on the network; the refusal comes with the next call.
        assertTrue(out.contains("probe: send after unexport: vmmc_Success"), out);
        assertTrue(out.contains("probe: next send: vmmcErr_BadIbufState"), out);
        assertTrue(out.contains("probe: notify after unexport: vmmc_Success"), out);
        assertTrue(out.contains("probe: get after notify: vmmcErr_BadIbufState"), out);
        assertTrue(out.contains("probe: import after unexport: vmmcErr_BadRbufState"), out);
    }

    @Test
    void multiNodeRandomPatternsOnThreeNodes() throws Exception {
        for (Class<?> c : List.of(RandomChain.class, RandomOne2All.class, RandomAll2All.class)) {
            String out = run(c, "3", "64", "30");
            assertTrue(out.matches("(?s).*" + c.getSimpleName() + ": 3 processes on \\[n1\\.\\d+, n2\\.\\d+, n3\\.\\d+\\], 64 words.*"), out);
        }
    }
}
