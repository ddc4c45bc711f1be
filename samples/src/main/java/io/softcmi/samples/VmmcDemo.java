package io.softcmi.samples;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The VMMC part of {@code softcmi demo} (docs/vmmc.md, "Running"): starts two {@code cmid}
 * daemons on loopback (hosts {@code n1}, {@code n2}), then {@link VmmcExchange} as a user would,
 * a JVM on {@code n1} with the session's settings ({@code VMMCSESSION}, {@code VMMCHOSTS},
 * {@code VMMCHOST}, {@code SOFTCMI_NODE}, ...) that spawns its peer on {@code n2} through that
 * host's daemon; prints both processes' output (the peer's from its {@code VMMC_n2.<pid>} log),
 * checks it, and stops and deletes everything it made. All JVMs use this JVM's class path.
 */
public final class VmmcDemo {
    /** The whole step, daemons included, ends within this. */
    private static final long BUDGET_MS = 60_000;

    private VmmcDemo() {
    }

    /**
     * Runs the step.
     *
     * @param out where to print
     * @throws IllegalStateException if a process fails, or the exchange's output is not as expected
     * @throws UncheckedIOException if a process cannot be started or a file written
     */
    public static void run(PrintStream out) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BUDGET_MS);
        List<ChildJvm> children = new ArrayList<>();
        List<Path> shm = new ArrayList<>();
        Path dir = null;
        Thread hook = new Thread(() -> {
            synchronized (children) {
                children.forEach(ChildJvm::close);
            }
        }, "vmmc-demo-children");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            dir = SampleDirs.privateTempDir("softcmi-vmmc-demo-");
            Path key = SampleDirs.newClusterKey(dir);
            String tag = ProcessHandle.current().pid() + "-" + dir.getFileName().toString().substring("softcmi-vmmc-demo-".length());
            StringBuilder hosts = new StringBuilder();
            for (int n = 1; n <= 2; n++) {
                Path s = Path.of("/dev/shm", "softcmi-vmmc-demo-" + tag + "-" + n);
                shm.add(s);
                Path node = dir.resolve("n" + n);
                ChildJvm cmid = ChildJvm.start("cmid n" + n, Map.of(), List.of(), dir.resolve("cmid-n" + n + ".log"),
                    "io.softcmi.node.Cmid", "--dir", node.toString(), "--listen", "127.0.0.1:0",
                    "--cluster-key", key.toString(), "--name", "vmmc-demo-n" + n, "--shm-dir", s.toString());
                synchronized (children) {
                    children.add(cmid);
                }
                cmid.awaitLine(l -> l.startsWith("cmid:"), remainingMs(deadline));
                hosts.append(n == 1 ? "" : ",").append("n").append(n).append('=').append(node);
            }
            out.println("  cmid n1 and cmid n2 up (node directories " + dir.resolve("n1") + ", " + dir.resolve("n2") + ")");
            Path outDir = Files.createDirectories(dir.resolve("out"));
            Map<String, String> env = new LinkedHashMap<>();
            env.put("VMMCSESSION", "demo");
            env.put("VMMCHOSTS", hosts.toString());
            env.put("VMMCHOST", "n1");
            env.put("VMMCSHARE", dir.resolve("share").toString());
            env.put("VMMCOUTDIR", outDir.toString());
            env.put("SOFTCMI_NODE", dir.resolve("n1").toString());
            out.println("  VMMCSESSION=demo VMMCHOSTS=n1=<n1 dir>,n2=<n2 dir> VMMCHOST=n1 SOFTCMI_NODE=<n1 dir> java "
                + VmmcExchange.class.getName());
            ChildJvm master = ChildJvm.start("VmmcExchange", env, List.of(), dir.resolve("master.log"),
                VmmcExchange.class.getName());
            synchronized (children) {
                children.add(master);
            }
            List<String> masterOut = master.awaitExit(remainingMs(deadline));
            masterOut.forEach(l -> out.println("  " + l));
            List<String> peerOut = peerLog(outDir);
            peerOut.forEach(l -> out.println("  " + l));
            if (masterOut.stream().noneMatch(l -> l.contains("words arrived in order"))
                || peerOut.stream().noneMatch(l -> l.contains("exchange OK"))) {
                throw new IllegalStateException("the exchange did not complete; master " + masterOut + ", peer " + peerOut);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            synchronized (children) {
                for (int i = children.size() - 1; i >= 0; i--) { // the program first, then the daemons
                    children.get(i).close();
                }
            }
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException ignored) {
                // already shutting down: the hook stops the children
            }
            SampleDirs.deleteQuietly(dir);
            shm.forEach(SampleDirs::deleteQuietly);
        }
    }

    private static long remainingMs(long deadline) {
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
    }

    /** The peer's program output from its {@code VMMC_n2.<pid>} log (its lines start with "peer"). */
    private static List<String> peerLog(Path outDir) throws IOException {
        List<String> lines = new ArrayList<>();
        try (Stream<Path> s = Files.list(outDir)) {
            for (Path f : s.filter(f -> f.getFileName().toString().startsWith("VMMC_")).sorted().toList()) {
                for (String l : Files.readAllLines(f)) {
                    if (l.startsWith("peer ")) {
                        lines.add(l + "   [" + f.getFileName() + "]");
                    }
                }
            }
        }
        return lines;
    }
}
