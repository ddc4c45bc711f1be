package io.softcmi.vmmc.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The command a spawned VMMC process is started with: this JVM's settings that must hold for it too. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RunControlTest {
    @TempDir
    Path dir;

    @Test
    void javaArgvGivesTheNewJvmThisJvmsVmmcSettingsAndAotCache() throws Exception {
        Path cache = dir.resolve("none.aot"); // no such file: the JVM warns and runs without it
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-XX:AOTCache=" + cache, "-Xlog:disable", "-Xlog:all=off", "-Dvmmc.sendWindow=3", "-Dother.setting=1",
            "-Dvmmc.host=alpha", "-Dvmmc.pid=7", "-Dvmmc.parent=alpha.1",
            "-cp", System.getProperty("java.class.path"), PrintJavaArgv.class.getName());
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "child ended");
        assertEquals(0, p.exitValue(), out);
        List<String> argv = out.lines().toList();
        assertTrue(argv.contains("-XX:AOTCache=" + cache), "the AOT cache is passed on: " + argv);
        assertTrue(argv.contains("-Dvmmc.sendWindow=3"), "vmmc.* settings are passed on: " + argv);
        assertTrue(argv.stream().noneMatch(a -> a.contains("other.setting") || a.startsWith("-Xlog")),
            "nothing else of this JVM's command line: " + argv);
        assertTrue(argv.stream().noneMatch(a -> a.startsWith("-Dvmmc.host") || a.startsWith("-Dvmmc.pid")
            || a.startsWith("-Dvmmc.parent")), "not this process's own host, pid and parent: " + argv);
        assertEquals(List.of("example.Main", "a1"), argv.subList(argv.size() - 2, argv.size()));
    }
}
