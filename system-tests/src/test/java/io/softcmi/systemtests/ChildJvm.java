package io.softcmi.systemtests;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Starts child JVMs with this JVM's java and class path (surefire is configured with
 * {@code useManifestOnlyJar=false} so that {@code java.class.path} is the real one). Every child
 * is remembered until it exits; a shutdown hook kills any left when this JVM ends, so a crashed
 * test run never leaves daemons or workers behind.
 */
final class ChildJvm {
    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly),
            "system-test-children-reaper"));
    }

    private ChildJvm() {
    }

    /** @return the java launcher of this JVM */
    static String javaCommand() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * Starts {@code mainClass} in a new JVM, its stdout and stderr merged (read them with an
     * {@link OutputCapture}).
     *
     * @param mainClass the class to run
     * @param jvmOptions extra JVM options (system properties)
     * @param args program arguments
     * @param env extra environment variables; a null value removes the variable
     * @return the started process
     * @throws IOException if it cannot be started
     */
    static Process start(Class<?> mainClass, List<String> jvmOptions, List<String> args, Map<String, String> env)
            throws IOException {
        return start(List.of(), mainClass, jvmOptions, args, env);
    }

    /**
     * Starts {@code mainClass} in a new JVM run through a command prefix (for example
     * {@code nsenter ...}, which then executes {@code java} in another namespace), its stdout and
     * stderr merged.
     *
     * @param prefix the words before {@code java}; empty for none. The prefix must execute
     *     {@code java} in its own process (no fork), so that the returned process is the JVM.
     * @param mainClass the class to run
     * @param jvmOptions extra JVM options (system properties)
     * @param args program arguments
     * @param env extra environment variables; a null value removes the variable
     * @return the started process
     * @throws IOException if it cannot be started
     */
    static Process start(List<String> prefix, Class<?> mainClass, List<String> jvmOptions, List<String> args,
            Map<String, String> env) throws IOException {
        List<String> cmd = new ArrayList<>(prefix);
        cmd.add(javaCommand());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        // Small, quick-starting JVMs: the machine running the suite may have two cores.
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-Xms16m");
        cmd.add("-Xmx256m");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass.getName());
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        Map<String, String> environment = pb.environment();
        environment.remove("SOFTCMI_NODE");
        env.forEach((k, v) -> {
            if (v == null) {
                environment.remove(k);
            } else {
                environment.put(k, v);
            }
        });
        Process p = pb.start();
        LIVE.add(p);
        p.onExit().thenRun(() -> LIVE.remove(p));
        return p;
    }
}
