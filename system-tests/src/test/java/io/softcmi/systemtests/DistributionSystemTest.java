package io.softcmi.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The binary distribution as a new user meets it: {@code softcmi-VERSION.tar.gz} unpacked in a
 * temporary directory (no build tree in sight), the demo on the embedded node, then a daemon
 * started from the example configuration file, the demo on it and {@code cmiadm} against it.
 */
class DistributionSystemTest {
    private static final Duration RUN = Duration.ofSeconds(120);

    @TempDir
    Path tmp;

    private Path unpack() throws Exception {
        Path tarball = Path.of(System.getProperty("softcmi.dist.tarball"));
        assertTrue(Files.isRegularFile(tarball), "no distribution at " + tarball + " (./mvnw package builds it)");
        Process tar = new ProcessBuilder("tar", "-xzf", tarball.toString(), "-C", tmp.toString())
            .redirectErrorStream(true).start();
        String out = new String(tar.getInputStream().readAllBytes());
        assertEquals(0, tar.waitFor(), "tar: " + out);
        Path home = tmp.resolve("softcmi-" + System.getProperty("softcmi.version"));
        assertTrue(Files.isDirectory(home), "tarball holds no " + home.getFileName());
        return home;
    }

    private static Set<String> names(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).collect(Collectors.toCollection(TreeSet::new));
        }
    }

    @Test
    void tarballHoldsEveryLauncherEveryRuntimeJarAndTheConfiguration() throws Exception {
        Path home = unpack();
        Path source = Path.of(System.getProperty("softcmi.source.root"));
        // Every launcher of the source tree's bin/, executable.
        Set<String> launchers = names(source.resolve("bin"));
        assertEquals(launchers, names(home.resolve("bin")));
        for (String l : launchers) {
            assertTrue(Files.isExecutable(home.resolve("bin").resolve(l)), l + " is not executable");
        }
        Set<String> lib = names(home.resolve("lib"));
        for (String module : List.of("wire", "cmi", "node", "tools", "samples")) {
            assertTrue(lib.contains("softcmi-" + module + "-" + System.getProperty("softcmi.version") + ".jar"),
                module + " missing from lib/: " + lib);
        }
        assertTrue(lib.stream().anyMatch(n -> n.startsWith("HdrHistogram-")), "third-party jar missing: " + lib);
        assertFalse(lib.stream().anyMatch(n -> n.contains("benchmarks") || n.contains("system-tests")
            || n.contains("junit") || n.contains("jmh")), "test or benchmark jars in lib/: " + lib);
        assertTrue(names(home.resolve("conf")).containsAll(Set.of("cmid.conf", "cmid.service", "cluster-key.md")));
        assertTrue(Files.readString(home.resolve("conf/cmid.service")).contains("Restart=on-failure"));
        assertTrue(Files.isRegularFile(home.resolve("README.md")));
        assertFalse(Files.exists(home.resolve("pom.xml")));
    }

    @Test
    void smirunAndCfgvmmcRunFromTheUnpackedTarball() throws Exception {
        Path home = unpack();
        Launchers bin = new Launchers(home, tmp.resolve("logs"), Map.of());
        String hello = bin.ok(RUN, Map.of(), "smirun", "-np", "2", "-nodes", "local:a", "local:a", "--",
            "io.softcmi.smi.samples.HelloWorld");
        assertTrue(hello.contains("Hello world from process 0 of 2"), hello);
        assertTrue(hello.contains("Hello world from process 1 of 2"), hello);
        String usage = bin.run(RUN, Map.of(), "cfgvmmc").output();
        assertTrue(usage.contains("usage: cfgvmmc HOST add SESSION"), usage);
    }

    @Test
    void demoRunsFromTheUnpackedTarballEmbeddedAndOnADaemonStartedFromAConfigFile() throws Exception {
        Path home = unpack();
        Launchers bin = new Launchers(home, tmp.resolve("logs"), Map.of());

        String version = bin.ok(RUN, Map.of(), "softcmi", "version");
        assertTrue(version.contains("softcmi " + System.getProperty("softcmi.version")), version);
        String classpath = bin.ok(RUN, Map.of(), "softcmi", "classpath").strip();
        for (String entry : classpath.split(":")) {
            assertTrue(Path.of(entry).startsWith(home.resolve("lib")), "class path outside lib/: " + entry);
        }

        String demo = bin.ok(RUN, Map.of(), "softcmi", "demo");
        assertTrue(demo.contains("demo OK"), demo);
        // The embedded node is quiet at INFO unless asked.
        assertFalse(demo.contains("io.softcmi.node:") || demo.contains("INFO"), demo);
        String loud = bin.ok(RUN, Map.of("SOFTCMI_LOG_LEVEL", "INFO"), "softcmi", "demo");
        assertTrue(loud.lines().anyMatch(l -> l.matches(".*Z INFO  \\[embedded-\\d+\\] io\\.softcmi\\.node: node embedded-\\d+ up: .*")),
            loud);

        // The daemon from a configuration file, as a service manager would start it.
        Path nodeDir = tmp.resolve("node");
        Path conf = tmp.resolve("cmid.conf");
        String example = Files.readString(home.resolve("conf/cmid.conf"));
        Files.writeString(conf, example.replace("dir = /var/lib/softcmi/node", "dir = " + nodeDir)
            + "\nname = distnode\nshm-dir = " + tmp.resolve("shm") + "\nmemory = 268435456\nlisten = 127.0.0.1:0\n");
        try (Launchers.Background cmid = bin.start(Map.of(), "cmid", "--config", conf.toString())) {
            cmid.await("serving", RUN);
            Map<String, String> onNode = Map.of("SOFTCMI_NODE", nodeDir.toString());
            String onDaemon = bin.ok(RUN, onNode, "softcmi", "demo");
            assertTrue(onDaemon.contains("demo OK"), onDaemon);
            String nodes = bin.ok(RUN, onNode, "cmiadm", "nodes");
            assertTrue(nodes.contains("distnode"), nodes);
            assertEquals(143, cmid.stop(), "cmid exit status after SIGTERM (the JVM convention, docs/operations.md)");
            // One line per record: time, level, node name, logger, message; start and shutdown logged.
            String log = Files.readString(cmid.output());
            assertTrue(log.lines().anyMatch(l -> l.matches(
                "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z INFO  \\[distnode\\] io\\.softcmi\\.node: node distnode up: .*")), log);
            assertTrue(log.contains("INFO  [distnode] io.softcmi.node: cmid distnode stopped"), log);
        }
        assertFalse(Files.exists(nodeDir.resolve("cmid.sock")), "daemon left its socket");
    }
}
