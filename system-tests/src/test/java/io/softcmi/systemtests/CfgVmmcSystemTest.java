package io.softcmi.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.vmmc.cluster.CfgVmmc;
import io.softcmi.vmmc.samples.Spawn;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code cfgvmmc add} then {@code run} of the spawn sample on three daemons: the run group's
 * output control file lists the lead and the processes it spawned, in the manual's format, and
 * each has its {@code VMMC_<host>.<pid>} log; {@code kill} and {@code del} clean up.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class CfgVmmcSystemTest {
    @RegisterExtension
    static final SystemTestResources RESOURCES = SystemTestResources.perClass();

    private static String cfg(Map<String, String> env, String... args) throws Exception {
        Process p = ChildJvm.start(CfgVmmc.class, List.of(), List.of(args), env);
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(Deadline.scaled(Duration.ofSeconds(60)).toSeconds(), TimeUnit.SECONDS), out);
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    @Test
    void runStartsARunGroupWithLogsAndAnOutputControlFile() throws Exception {
        List<NodeProcess> nodes = ClusterNodes.create(RESOURCES).start("n1", "n2", "n3");
        Path work = Files.createTempDirectory("softcmi-cfgvmmc-");
        RESOURCES.own(() -> Files2.deleteTree(work));
        Path outDir = work.resolve("out");
        String hosts = "n1=" + nodes.get(0).directory() + ",n2=" + nodes.get(1).directory() + ",n3=" + nodes.get(2).directory();
        Map<String, String> env = Map.of("VMMCSHARE", work.resolve("share").toString(), "VMMCHOSTS", hosts);
        assertTrue(cfg(env, "n1", "add", "test", "alice", "-", work.toString(), "-", outDir.toString()).contains("added"));
        String started = cfg(env, "n1", "run", "test", "/", Spawn.class.getName(), "2");
        assertTrue(started.contains("pid 1, run group 1"), started);
        Path control = outDir.resolve("test_1");
        Deadline d = Deadline.in(Duration.ofSeconds(120));
        String text = "";
        while (!d.expired()) {
            text = Files.exists(control) ? Files.readString(control) : "";
            if (text.contains("VMMC_n3 ") && Files.exists(outDir.resolve("VMMC_n1.1"))
                    && Files.readString(outDir.resolve("VMMC_n1.1")).contains("spawn: level 2 done")) {
                break;
            }
            Thread.sleep(100);
        }
        System.out.println(text);
        assertTrue(text.startsWith("#\n# VMMC Output Control For Session [test] Run #1 User [alice]\n#\n"), text);
        assertTrue(text.matches("(?s).*VMMC_n1 1 # HOST=n1 REALPID=\\d+ TIME=.*"), text);
        assertTrue(text.matches("(?s).*VMMC_n2 1 # HOST=n2 REALPID=\\d+ TIME=.*"), text);
        assertTrue(text.matches("(?s).*VMMC_n3 1 # HOST=n3 REALPID=\\d+ TIME=.*"), text);
        assertTrue(Files.readString(outDir.resolve("VMMC_n1.1")).contains("spawn: level 2 done"), log(outDir));
        assertTrue(Files.readString(outDir.resolve("VMMC_n3.1")).contains("spawn: level 0 on n3 pid 1 parent n2.1"), log(outDir));
        assertTrue(cfg(env, "n1", "kill", "test").contains("process(es) of session test"));
        assertTrue(cfg(env, "n1", "del", "test").contains("deleted"));
    }

    private static String log(Path outDir) throws IOException {
        StringBuilder sb = new StringBuilder();
        try (var s = Files.list(outDir)) {
            for (Path f : s.sorted().toList()) {
                sb.append("== ").append(f.getFileName()).append('\n').append(Files.readString(f));
            }
        }
        return sb.toString();
    }
}
