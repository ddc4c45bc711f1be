package io.softcmi.smi.run;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CommandsTest {
    @TempDir
    Path tmp;

    @Test
    void shouldTakeNoJvmOptionFromAnUnsetEmptyOrBlankSmiJavaOpts() {
        assertEquals(List.of(), Commands.jvmOptions(null));
        assertEquals(List.of(), Commands.jvmOptions(""));
        assertEquals(List.of(), Commands.jvmOptions("  "));
        assertEquals(List.of("-Xmx64m", "-Dx=1"), Commands.jvmOptions(" -Xmx64m  -Dx=1 "));
    }

    @Test
    void shouldBuildRankAndCmidCommands() {
        List<String> rank = new java.util.ArrayList<>(List.of("java", "--enable-native-access=ALL-UNNAMED"));
        rank.addAll(io.softcmi.cmi.internal.JitOptions.forChild());
        rank.addAll(List.of("-Xmx64m", "-cp", "a.jar:b.jar", "app.Main", "1"));
        assertEquals(rank, Commands.rank("java", "a.jar:b.jar", List.of("-Xmx64m"), "app.Main", List.of("1")));
        List<String> c = Commands.cmid("java", "cp", Path.of("/d"), "n", "127.0.0.1:0", Path.of("/k"), Path.of("/s"));
        assertEquals(List.of("--dir", "/d", "--name", "n", "--listen", "127.0.0.1:0", "--cluster-key", "/k", "--shm-dir",
            "/s"), c.subList(c.indexOf("io.softcmi.node.Cmid") + 1, c.size()));
        org.junit.jupiter.api.Assertions.assertTrue(c.containsAll(io.softcmi.cmi.internal.JitOptions.forChild()),
            "the daemon gets the JIT options");
    }

    @Test
    void shouldRunRemoteCommandsThroughConfigurableSshWithEnvironmentAndDirectory() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("SMI_RANK", "3");
        env.put("SMI_NODE_NAMES", "a b");
        List<String> c = Commands.remote("node7", env, Path.of("/work dir"), List.of("java", "-cp", "x", "M"),
            "ssh -o BatchMode=yes", false);
        assertEquals(List.of("ssh", "-o", "BatchMode=yes", "node7",
            "cd '/work dir' && exec env SMI_RANK=3 'SMI_NODE_NAMES=a b' java -cp x M"), c);
    }

    @Test
    void shouldUseSrunInsideASlurmAllocation() {
        List<String> c = Commands.remote("n3", Map.of("K", "v"), Path.of("/w"), List.of("java", "M"), "ssh", true);
        assertEquals(List.of("srun", "--nodes=1", "--ntasks=1", "--nodelist=n3", "--chdir=/w", "env", "K=v", "java", "M"), c);
    }

    @Test
    void shouldWrapInXtermWithOrWithoutPager() {
        assertEquals(List.of("xterm", "-T", "rank 0", "-e", "sh", "-c", "java M 2>&1 | less"),
            Commands.xterm(List.of("java", "M"), "rank 0", "xterm", "less"));
        List<String> c = Commands.xterm(List.of("java", "M"), "t", "urxvt -fn x", null);
        assertEquals(List.of("urxvt", "-fn", "x", "-T", "t", "-e", "sh", "-c"), c.subList(0, 8));
    }

    @Test
    void shouldQuoteForSh() {
        assertEquals("abc", Commands.quote("abc"));
        assertEquals("''", Commands.quote(""));
        assertEquals("'it'\"'\"'s'", Commands.quote("it's"));
    }

    @Test
    void shouldNameOutputFilesPerRankAndRenameASingleNonEmptyOne() throws Exception {
        Path base = tmp.resolve("out");
        Files.writeString(base, "old");
        Files.writeString(tmp.resolve("out_1"), "older");
        OutputFiles f = new OutputFiles(base, 3);
        f.prepare();
        assertEquals("old", Files.readString(tmp.resolve("out~")));
        assertEquals("older", Files.readString(tmp.resolve("out_1~")));
        Files.writeString(f.file(0), "");
        Files.writeString(f.file(1), "hello");
        Files.writeString(f.file(2), "");
        assertEquals(List.of(base), f.finish());
        assertEquals("hello", Files.readString(base));
        assertEquals(false, Files.exists(f.file(0)) || Files.exists(f.file(2)));
        Files.writeString(f.file(0), "a");
        Files.writeString(f.file(1), "b");
        assertEquals(List.of(f.file(0), f.file(1)), f.finish());
    }
}
