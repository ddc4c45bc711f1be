package io.softcmi.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code cmid --group}: a daemon run by its own service user serves the members of a group. The
 * test creates a group and two OS users ({@code useradd}, so it needs root; skipped with the
 * reason otherwise), runs the daemon as the first and a CMI program plus {@code cmiadm} as the
 * second, and checks that a user outside the group ({@code nobody}) is refused.
 */
@Timeout(300)
class MultiUserNodeTest {
    private final String suffix = Integer.toString(ThreadLocalRandom.current().nextInt(1 << 20, 1 << 24), 36);
    private final String group = "scmig" + suffix;
    private final String daemonUser = "scmid" + suffix;
    private final String clientUser = "scmic" + suffix;
    private final List<String> cleanup = new ArrayList<>();
    private Path base;
    private Process cmid;

    private static int exec(Duration limit, String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
        if (!p.waitFor(Deadline.scaled(limit).toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
            return -1;
        }
        return p.exitValue();
    }

    private static String output(Duration limit, List<String> command) throws Exception {
        Path out = Files.createTempFile("softcmi-mu", ".log");
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            if (!p.waitFor(Deadline.scaled(limit).toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
                fail(command + " did not finish: " + Files.readString(out));
            }
            return p.exitValue() + "\n" + Files.readString(out);
        } finally {
            Files.deleteIfExists(out);
        }
    }

    private List<String> as(String user, Path source, String... command) {
        List<String> c = new ArrayList<>(List.of("runuser", "-u", user, "--", "env",
            "SOFTCMI_JAVA_HOME=" + System.getProperty("java.home"), "SOFTCMI_NODE=" + base.resolve("node")));
        c.add(source.resolve("bin").resolve(command[0]).toString());
        c.addAll(List.of(command).subList(1, command.length));
        return c;
    }

    @Test
    void groupMembersShareTheNodeOthersAreRefused() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")),
            "skipped: creating OS users needs root (running as " + System.getProperty("user.name") + ")");
        assumeTrue(exec(Duration.ofSeconds(30), "groupadd", group) == 0, "skipped: groupadd is not allowed here");
        cleanup.add("groupdel " + group);
        assumeTrue(exec(Duration.ofSeconds(30), "useradd", "-M", "-N", "-g", group, "-s", "/usr/sbin/nologin", daemonUser) == 0,
            "skipped: useradd is not allowed here");
        cleanup.add(0, "userdel " + daemonUser);
        assertEquals(0, exec(Duration.ofSeconds(30), "useradd", "-M", "-N", "-g", group, "-s", "/usr/sbin/nologin", clientUser));
        cleanup.add(0, "userdel " + clientUser);

        Path source = Path.of(System.getProperty("softcmi.source.root")).toRealPath();
        base = Files.createDirectories(Path.of("/tmp", "softcmi-mu-" + suffix));
        Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertEquals(0, exec(Duration.ofSeconds(30), "chown", daemonUser, base.toString()));
        Path log = base.resolve("cmid.log");
        List<String> start = as(daemonUser, source, "cmid", "--dir", base.resolve("node").toString(), "--group", group,
            "--name", "mu" + suffix, "--memory", "268435456");
        cmid = new ProcessBuilder(start).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        Deadline d = Deadline.in(Duration.ofSeconds(60));
        while (!Files.readString(log).contains("serving")) {
            assertTrue(cmid.isAlive() && !d.expired(), "cmid did not start:\n" + Files.readString(log));
            Thread.sleep(100);
        }
        PosixFileAttributes sock = Files.readAttributes(base.resolve("node/cmid.sock"), PosixFileAttributes.class);
        assertEquals(group, sock.group().getName());
        assertEquals("rw-rw----", PosixFilePermissions.toString(sock.permissions()));
        assertEquals("rwxr-x---", PosixFilePermissions.toString(
            Files.readAttributes(base.resolve("node"), PosixFileAttributes.class).permissions()));

        // The second user, a member of the group: cmiadm and a program that creates, maps and exports a segment.
        String nodes = output(Duration.ofSeconds(120), as(clientUser, source, "cmiadm", "nodes"));
        assertTrue(nodes.startsWith("0\n") && nodes.contains("mu" + suffix), nodes);
        List<String> sample = as(clientUser, source, "softcmi", "demo");
        String demo = output(Duration.ofSeconds(240), sample);
        assertTrue(demo.startsWith("0\n") && demo.contains("demo OK"), demo);

        // A user outside the group is refused at the socket.
        String refused = output(Duration.ofSeconds(120), as("nobody", source, "cmiadm", "nodes"));
        assertTrue(refused.startsWith("1\n") && refused.contains("Permission denied"), refused);
    }

    @AfterEach
    void tearDown() throws Exception {
        if (cmid != null) {
            cmid.destroy(); // runuser passes SIGTERM on to the daemon
            if (!cmid.waitFor(Deadline.scaled(Duration.ofSeconds(30)).toMillis(), TimeUnit.MILLISECONDS)) {
                cmid.descendants().forEach(ProcessHandle::destroyForcibly);
                cmid.destroyForcibly();
                cmid.waitFor(10, TimeUnit.SECONDS);
            }
        }
        if (base != null) {
            Files2.deleteTree(base);
        }
        for (String c : cleanup) {
            exec(Duration.ofSeconds(30), c.split(" "));
        }
    }
}
