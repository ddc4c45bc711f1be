package io.softcmi.benchmarks.cluster;

import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiVersion;
import java.io.IOException;
import java.nio.file.Path;
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
}
