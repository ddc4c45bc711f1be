package io.softcmi.cmi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class JitOptionsTest {
    @Test
    void shouldScaleTheThresholdsOfEverySoftcmiLibraryPackageAndNothingElse() {
        List<String> options = JitOptions.forChild();
        assertEquals("-XX:CompileCommand=quiet", options.get(0));
        for (String p : List.of("io.softcmi.cmi", "io.softcmi.node", "io.softcmi.wire", "io.softcmi.smi", "io.softcmi.vmmc")) {
            assertTrue(options.contains("-XX:CompileCommand=CompileThresholdScaling," + p + ".*::*,0.1"), p);
        }
        assertEquals(1 + JitOptions.PACKAGES.size(), options.size());
        assertTrue(options.stream().noneMatch(o -> o.startsWith("-XX:CompileThresholdScaling")), "no scaling of the JDK's own code");
    }

    @Test
    void shouldLeaveThemOutWhenTurnedOff() {
        String before = System.getProperty(JitOptions.PROPERTY);
        System.setProperty(JitOptions.PROPERTY, "off");
        try {
            assertEquals(List.of(), JitOptions.forChild());
        } finally {
            if (before == null) {
                System.clearProperty(JitOptions.PROPERTY);
            } else {
                System.setProperty(JitOptions.PROPERTY, before);
            }
        }
    }

    @Test
    void shouldBeTakenByTheJvm() throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(JitOptions.forChild());
        cmd.add("-version");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "java -version did not end");
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.exitValue(), out);
        assertFalse(out.contains("rror"), out);
    }

    @Test
    void shouldBeTheShellLaunchersDefaultToo() throws Exception {
        Path env = Path.of("..", "bin", "softcmi-env");
        String script = Files.readString(env);
        assertTrue(script.contains("SOFTCMI_DEFAULT_JIT_OPTS=\"-XX:CompileCommand=quiet\""), "bin/softcmi-env names the options");
        for (String p : JitOptions.PACKAGES) {
            assertTrue(script.contains(" " + p + " ") || script.contains(" " + p + ";"), p + " in bin/softcmi-env's list");
        }
        assertTrue(script.contains("CompileThresholdScaling,$softcmi_package.*::*," + JitOptions.SCALING), "the same scaling");
    }
}
