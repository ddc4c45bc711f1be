package io.softcmi.benchmarks.cluster;

import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiVersion;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Predicate;

/** Contexts for the cluster benchmarks of cached imports; children and raw peers come from {@link ChildProcesses}. */
final class ClusterBench {
    private ClusterBench() {
    }

    /** A context on the node whose directory is {@code node}. */
    static Callable<CmiContext> context(Path node) {
        return () -> {
            synchronized (ClusterBench.class) {
                System.setProperty("softcmi.node", node.toString());
                return Cmi.init(new CmiVersion(1, 1));
            }
        };
    }

    /** Starts a {@link RawTcpPeer} and returns its port (see {@link ChildProcesses#rawTcpPort}). */
    static int port(List<Process> children, String... args) throws IOException {
        return ChildProcesses.rawTcpPort(children, args);
    }

    /** Starts a Java child on this class path and waits for the line {@code ready} accepts (see {@link ChildProcesses#start}). */
    static Process start(Predicate<String> ready, String... mainAndArgs) throws IOException {
        return ChildProcesses.start(ready, List.of(), mainAndArgs);
    }

    /**
     * Writes a fresh cluster key into {@code dir} and starts two {@code cmid} on loopback, with
     * node directories {@code dir/n1} and {@code dir/n2}.
     *
     * @param children where the daemons are registered (to be stopped by {@link #stopAndDelete})
     * @param name the daemons' name prefix (also in their shared-memory directories)
     */
    static void startTwoDaemons(Path dir, List<Process> children, String name) throws Exception {
        Path key = dir.resolve("cluster.key");
        Files.write(key, java.security.SecureRandom.getInstanceStrong().generateSeed(32));
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
        for (int n = 1; n <= 2; n++) {
            children.add(start(l -> l.startsWith("cmid:"), "io.softcmi.node.Cmid", "--dir", dir.resolve("n" + n).toString(),
                "--listen", "127.0.0.1:0", "--cluster-key", key.toString(), "--name", name + n, "--shm-dir",
                "/dev/shm/softcmi-" + name + "-" + ProcessHandle.current().pid() + "-" + n));
        }
    }

    /** Stops the children, politely first ({@link ChildProcesses#stop}), and deletes {@code dir} with everything in it. */
    static void stopAndDelete(List<Process> children, Path dir) throws IOException, InterruptedException {
        ChildProcesses.stop(children);
        try (var files = Files.walk(dir)) {
            files.sorted((x, y) -> y.compareTo(x)).forEach(f -> f.toFile().delete());
        }
    }
}
