package io.softcmi.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.tools.CmiAdm;
import io.softcmi.vmmc.cluster.CfgVmmc;
import io.softcmi.vmmc.samples.Spawn;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The node daemons as the VMMC cluster server: {@code cfgvmmc add} records the session in every
 * host's daemon, {@code cfgvmmc run} has the daemons start the processes (the spawn sample
 * spawns across hosts through each host's daemon); after every {@code cfgvmmc} client has
 * exited, {@code cmiadm sessions} and {@code cmiadm runs} on the daemons still list the session
 * and the processes with their exit codes; {@code cfgvmmc kill} ends running groups and
 * {@code cmiadm runs} shows them killed; {@code cfgvmmc del} forgets the session.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class VmmcClusterServiceSystemTest {
    @RegisterExtension
    static final SystemTestResources RESOURCES = SystemTestResources.perClass();

    private static String cfg(Map<String, String> env, String... args) throws Exception {
        Process p = ChildJvm.start(CfgVmmc.class, List.of(), List.of(args), env);
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(Deadline.scaled(Duration.ofSeconds(60)).toSeconds(), TimeUnit.SECONDS), out);
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    private static String cmiadm(NodeProcess node, String table) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = CmiAdm.run(new String[] {table}, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8), Map.of("SOFTCMI_NODE", node.directory().toString()));
        assertEquals(0, rc, err.toString(StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8);
    }

    /** Polls {@code cmiadm TABLE} until its text passes, for at most two minutes. */
    private static String awaitTable(NodeProcess node, String table, Predicate<String> done) throws InterruptedException {
        Deadline d = Deadline.in(Duration.ofSeconds(120));
        String text = cmiadm(node, table);
        while (!done.test(text) && !d.expired()) {
            Thread.sleep(200);
            text = cmiadm(node, table);
        }
        System.out.println("cmiadm " + table + " at " + node.directory() + ":\n" + text);
        return text;
    }

    @Test
    void daemonsKeepTheSessionAndItsRunsAfterTheClientsLeave() throws Exception {
        List<NodeProcess> nodes = ClusterNodes.create(RESOURCES).start("n1", "n2", "n3");
        Path work = Files.createTempDirectory("softcmi-vmmcsvc-");
        RESOURCES.own(() -> Files2.deleteTree(work));
        Path outDir = work.resolve("out");
        Path sleeper = work.resolve("sleeper.sh");
        Files.writeString(sleeper, "#!/bin/sh\nexec sleep 120\n");
        Files.setPosixFilePermissions(sleeper, PosixFilePermissions.fromString("rwx------"));
        String hosts = "n1=" + nodes.get(0).directory() + ",n2=" + nodes.get(1).directory() + ",n3=" + nodes.get(2).directory();
        Map<String, String> env = Map.of("VMMCSHARE", work.resolve("share").toString(), "VMMCHOSTS", hosts);

        assertTrue(cfg(env, "n1", "add", "test", "alice", "-", work.toString(), "-", outDir.toString()).contains("added"));
        String started = cfg(env, "n1", "run", "test", "/", Spawn.class.getName(), "2");
        assertTrue(started.contains("pid 1, run group 1"), started);

        // The lead on n1 spawned level 1 on n2 (through n2's daemon), which spawned level 0 on n3.
        Predicate<String> spawnGroupExited = t -> t.matches("(?s).*test/1 +\\d+ +\\d+ +VMMC_n\\d\\.1 +exited +0 .*");
        for (NodeProcess n : nodes) {
            String runs = awaitTable(n, "runs", spawnGroupExited);
            assertTrue(spawnGroupExited.test(runs), runs);
            String sessions = cmiadm(n, "sessions");
            System.out.println("cmiadm sessions at " + n.directory() + ":\n" + sessions);
            assertTrue(sessions.matches("(?s).*\\btest +alice .*"), sessions);
        }
        assertTrue(Files.readString(outDir.resolve("VMMC_n3.1")).contains("spawn: level 0 on n3 pid 1 parent n2.1"));
        String control = Files.readString(outDir.resolve("test_1"));
        assertTrue(control.matches("(?s).*VMMC_n3 1 # HOST=n3 REALPID=\\d+ TIME=.*"), control);

        // Two sleeping runs on n2 and n3 (run groups 2 and 3), then kill the session's processes.
        assertTrue(cfg(env, "n2", "run", "test", "/", "sleeper.sh").contains("run group 2"));
        assertTrue(cfg(env, "n3", "run", "test", "/", "sleeper.sh").contains("run group 3"));
        assertTrue(awaitTable(nodes.get(1), "runs", t -> t.contains("test/2") && t.contains("running")).contains("running"));
        assertTrue(awaitTable(nodes.get(2), "runs", t -> t.contains("test/3") && t.contains("running")).contains("running"));
        assertTrue(cfg(env, "n1", "kill", "test").contains("killed 2 process(es) of session test"));
        Predicate<String> killed2 = t -> t.matches("(?s).*test/2 +\\d+ +\\d+ +VMMC_n2\\.\\d+ +killed +143 .*");
        Predicate<String> killed3 = t -> t.matches("(?s).*test/3 +\\d+ +\\d+ +VMMC_n3\\.\\d+ +killed +143 .*");
        assertTrue(killed2.test(awaitTable(nodes.get(1), "runs", killed2)));
        assertTrue(killed3.test(awaitTable(nodes.get(2), "runs", killed3)));

        assertTrue(cfg(env, "n1", "del", "test").contains("deleted"));
        for (NodeProcess n : nodes) {
            String sessions = cmiadm(n, "sessions");
            assertTrue(!sessions.contains("alice"), sessions);
        }
    }

    private static String address(NodeProcess n) {
        return java.util.HexFormat.of().formatHex(ClusterNodes.nodeId(n)) + "@127.0.0.1:" + ClusterNodes.port(n);
    }

    @Test
    void hostsGivenByNodeAddressAreReachedThroughTheLocalDaemon() throws Exception {
        ClusterNodes cluster = ClusterNodes.create(RESOURCES);
        List<NodeProcess> nodes = List.of(cluster.startWithOptions("a1", "--peer-processes", "yes"),
            cluster.startWithOptions("a2", "--peer-processes", "yes"), cluster.startWithOptions("a3", "--peer-processes", "yes"));
        NodeProcess closed = cluster.startWithOptions("a4");
        Path work = Files.createTempDirectory("softcmi-vmmcsvc-fwd-");
        RESOURCES.own(() -> Files2.deleteTree(work));
        Path outDir = work.resolve("out");
        // Only a1 by directory: a2 and a3 by node address, through a1's daemon (and a2's, for a3).
        String hosts = "a1=" + nodes.get(0).directory() + ",a2=" + address(nodes.get(1)) + ",a3=" + address(nodes.get(2));
        Map<String, String> env = Map.of("VMMCSHARE", work.resolve("share").toString(), "VMMCHOSTS", hosts,
            "SOFTCMI_NODE", nodes.get(0).directory().toString());
        assertTrue(cfg(env, "a1", "add", "fwd", "bob", "-", work.toString(), "-", outDir.toString()).contains("added"));
        assertTrue(cfg(env, "a1", "run", "fwd", "/", Spawn.class.getName(), "2").contains("pid 1, run group 1"));
        Predicate<String> exited = t -> t.matches("(?s).*fwd/1 +\\d+ +\\d+ +VMMC_a\\d\\.1 +exited +0 .*");
        for (NodeProcess n : nodes) {
            String runs = awaitTable(n, "runs", exited);
            assertTrue(exited.test(runs), runs);
            String sessions = cmiadm(n, "sessions");
            assertTrue(sessions.matches("(?s).*\\bfwd +bob .*"), sessions);
        }
        assertTrue(Files.readString(outDir.resolve("VMMC_a3.1")).contains("spawn: level 0 on a3 pid 1 parent a2.1"));
        assertTrue(cfg(env, "a3", "run", "fwd", "/", "/bin/sleep", "120").contains("run group 2"));
        assertTrue(awaitTable(nodes.get(2), "runs", t -> t.contains("running")).contains("running"));
        assertTrue(cfg(env, "a1", "kill", "fwd").contains("killed 1 process(es)"));
        Predicate<String> killed = t -> t.matches("(?s).*fwd/2 +\\d+ +\\d+ +VMMC_a3\\.\\d+ +killed +143 .*");
        assertTrue(killed.test(awaitTable(nodes.get(2), "runs", killed)));
        assertTrue(cfg(env, "a1", "del", "fwd").contains("deleted"));

        // A daemon without --peer-processes yes refuses forwarded requests.
        try (var d = io.softcmi.vmmc.internal.NodeServices.reach(address(closed), nodes.get(0).directory().toString(), "test")) {
            io.softcmi.cmi.CmiException e = org.junit.jupiter.api.Assertions.assertThrows(io.softcmi.cmi.CmiException.class,
                () -> d.list("runs"));
            assertEquals(io.softcmi.cmi.CmiError.PERM, e.error(), e.getMessage());
        }
    }
}
