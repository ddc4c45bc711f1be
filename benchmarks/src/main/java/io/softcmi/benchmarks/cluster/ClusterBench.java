package io.softcmi.benchmarks.cluster;

import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiVersion;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** Process plumbing shared by the cluster benchmarks of cached imports: children, contexts, raw peers. */
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

    /** Starts a {@link RawTcpPeer} and returns its port. */
    static int port(List<Process> children, String... args) throws IOException {
        String[] full = new String[args.length + 1];
        full[0] = RawTcpPeer.class.getName();
        System.arraycopy(args, 0, full, 1, args.length);
        String[] line = new String[1];
        children.add(start(l -> {
            if (l.startsWith("PORT ")) {
                line[0] = l;
                return true;
            }
            return false;
        }, full));
        return Integer.parseInt(line[0].substring(5).trim());
    }

    /** Starts a Java child on this class path and waits for the line {@code ready} accepts. */
    static Process start(Predicate<String> ready, String... mainAndArgs) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path")));
        cmd.addAll(List.of(mainAndArgs));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream()));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String l;
        while ((l = r.readLine()) != null) {
            if (ready.test(l)) {
                Thread.ofVirtual().start(() -> drain(r));
                return p;
            }
            if (System.nanoTime() > deadline) {
                break;
            }
        }
        p.destroyForcibly();
        throw new IOException("child " + mainAndArgs[0] + " did not start");
    }

    private static void drain(BufferedReader r) {
        try {
            while (r.readLine() != null) {
                // keep the pipe from filling
            }
        } catch (IOException ignored) {
            // child gone
        }
    }
}
