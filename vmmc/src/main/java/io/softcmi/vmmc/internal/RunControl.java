package io.softcmi.vmmc.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * The output control file of a run group, {@code OUTDIR/SESSION_RUN}, in the manual's format:
 * <pre>
 * #
 * # VMMC Output Control For Session [test] Run #1 User [alice]
 * #
 * VMMC_n1 1 # HOST=n1 REALPID=19942 TIME=2026/11/23- 1: 5
 * </pre>
 * and the environment every process of a session gets ({@link #sessionEnv}).
 */
public final class RunControl {
    private RunControl() {
    }

    /** @param outDir output directory @param session session @param run run group @return the file */
    public static Path file(Path outDir, String session, long run) {
        return outDir.resolve(session + "_" + run);
    }

    /**
     * Writes the header of a new run group's file.
     *
     * @param outDir output directory
     * @param session session
     * @param run run group
     * @param user the session's user
     */
    public static void start(Path outDir, String session, long run, String user) {
        try {
            Files.createDirectories(outDir);
            Files.writeString(file(outDir, session, run), "#\n# VMMC Output Control For Session [" + session + "] Run #" + run
                + " User [" + user + "]\n#\n", StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Appends a started process's line.
     *
     * @param outDir output directory
     * @param session session
     * @param run run group
     * @param host host
     * @param pid VMMC logical pid
     * @param realPid OS pid
     */
    public static void record(Path outDir, String session, long run, String host, int pid, long realPid) {
        LocalDateTime t = LocalDateTime.now();
        String line = String.format("VMMC_%s %d # HOST=%s REALPID=%d TIME=%d/%2d/%2d-%2d:%2d%n", host, pid, host, realPid,
            t.getYear(), t.getMonthValue(), t.getDayOfMonth(), t.getHour(), t.getMinute());
        try {
            Files.writeString(file(outDir, session, run), line, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @param session session @param run run group @return the node's process group name, {@code SESSION/RUN} */
    public static String group(String session, String run) {
        return session + "/" + run;
    }

    /**
     * The environment a process of a session gets from the daemon that starts it: the caller's
     * {@code SOFTCMI_*} settings (the daemon's own environment is the base), then the session's.
     *
     * The daemon sets {@code SOFTCMI_NODE} to its own directory.
     *
     * @param vmmc {@code VMMC*} variables to set; a null value removes the variable
     * @return {@code KEY=VALUE} and {@code KEY} (removal) entries
     */
    public static List<String> sessionEnv(java.util.Map<String, String> vmmc) {
        List<String> env = new ArrayList<>();
        System.getenv().forEach((k, v) -> {
            if (k.startsWith("SOFTCMI_") && !k.equals("SOFTCMI_NODE")) {
                env.add(k + "=" + v);
            }
        });
        vmmc.forEach((k, v) -> env.add(v == null ? k : k + "=" + v));
        return env;
    }

    /** The settings that name one process ({@code VMMCHOST}, {@code VMMCPID}, {@code VMMCPARENT}): never passed on. */
    private static final java.util.Set<String> OWN = java.util.Set.of("vmmc.host", "vmmc.pid", "vmmc.parent");

    /**
     * The command that runs a Java main class of this process's class path with this JVM's
     * {@code java}: the daemon that starts it must see the same paths (one machine or one
     * installation). This JVM's {@code vmmc.*} system properties (the library's settings, such as
     * {@code vmmc.sendWindow}, and the samples' such as {@code vmmc.bandwidth.seconds}) are given
     * to the new JVM too (not {@code vmmc.host}, {@code vmmc.pid} and {@code vmmc.parent}, which
     * name this process: they would override the new one's {@code VMMCHOST}, {@code VMMCPID} and
     * {@code VMMCPARENT}), so that a spawned process runs with its parent's settings, and so is
     * this JVM's ahead-of-time cache ({@code -XX:AOTCache=FILE}, JDK 25: classes loaded and
     * method profiles from a training run, so the JIT compiles the hot path sooner), which was
     * made for this class path (docs/vmmc.md, "Warm-up").
     *
     * @param mainClass the class
     * @param args its arguments
     * @return the argv
     */
    public static List<String> javaArgv(String mainClass, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
            .filter(a -> a.startsWith("-XX:AOTCache=")).forEach(cmd::add);
        // The session's settings, not this process's own identity: the new process gets its host,
        // pid and parent as VMMCHOST, VMMCPID and VMMCPARENT, which a property would override.
        System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith("vmmc.") && !OWN.contains(k)).sorted()
            .forEach(k -> cmd.add("-D" + k + "=" + System.getProperty(k)));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass);
        cmd.addAll(args);
        return cmd;
    }
}
