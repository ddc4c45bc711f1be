package io.softcmi.benchmarks.cluster;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * What the whole-cluster benchmark programs share: starting child JVMs (daemons, raw peers,
 * workers) on this JVM's class path and waiting for their ready line, and the percentiles of
 * timed operations.
 */
final class ChildProcesses {
    private ChildProcesses() {
    }

    /**
     * Starts a child JVM and waits (at most 60 s) for the first line of its standard output that
     * {@code ready} accepts; the rest of its output is drained. The child gets this JVM's
     * {@code softcmi.poll} setting (or {@code softcmi.daemonPoll}, for daemons).
     *
     * @param ready which line means it is ready (the line is kept in {@code readyLine[0]} if given)
     * @param jvmOptions extra JVM options
     * @param mainAndArgs main class and its arguments
     * @return the running child
     * @throws IOException if it exits or stays silent
     */
    static Process start(Predicate<String> ready, List<String> jvmOptions, String... mainAndArgs) throws IOException {
        boolean daemon = mainAndArgs[0].equals("io.softcmi.node.Cmid");
        String poll = daemon ? System.getProperty("softcmi.daemonPoll", System.getProperty("softcmi.poll", "true"))
            : System.getProperty("softcmi.poll", "true");
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--enable-native-access=ALL-UNNAMED", "-Dsoftcmi.poll=" + poll));
        cmd.addAll(io.softcmi.cmi.internal.JitOptions.forChild());
        cmd.addAll(jvmOptions);
        // Extra options for every child of one kind, e.g. a JFR recording to profile:
        // -Dbench.daemonJvm="-XX:StartFlightRecording=filename=d.jfr" or -Dbench.childJvm=...
        String extra = System.getProperty(daemon ? "bench.daemonJvm" : "bench.childJvm", "");
        if (!extra.isBlank()) {
            cmd.addAll(Arrays.asList(extra.strip().split("\\s+")));
        }
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path")));
        cmd.addAll(Arrays.asList(mainAndArgs));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream()));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
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

    /**
     * Starts a {@link RawTcpPeer} and returns the port it listens on.
     *
     * @param children where the child is registered (to be stopped by the caller)
     * @param args the peer's mode and sizes
     * @return its port on 127.0.0.1
     * @throws IOException if it does not start
     */
    static int rawTcpPort(List<Process> children, String... args) throws IOException {
        String[] full = new String[args.length + 1];
        full[0] = RawTcpPeer.class.getName();
        System.arraycopy(args, 0, full, 1, args.length);
        return childPort(children, full);
    }

    /**
     * Starts a child that prints "PORT n" when it listens, and returns the port.
     *
     * @param children where the child is registered (to be stopped by the caller)
     * @param full its main class and arguments
     * @return its port on 127.0.0.1
     * @throws IOException if it does not start
     */
    static int childPort(List<Process> children, String... full) throws IOException {
        String[] line = new String[1];
        children.add(start(l -> {
            if (l.startsWith("PORT ")) {
                line[0] = l;
                return true;
            }
            return false;
        }, List.of(), full));
        return Integer.parseInt(line[0].substring(5).trim());
    }

    /** Stops children, politely first. */
    static void stop(List<Process> children) throws InterruptedException {
        for (Process c : children) {
            c.destroy();
            if (!c.waitFor(10, TimeUnit.SECONDS)) {
                c.destroyForcibly();
            }
        }
    }

    /** An operation to time. */
    interface Op {
        /** @param i the iteration */
        void run(int i) throws Exception;
    }

    /**
     * Times {@code ops} runs of {@code op} one by one, after {@code ops / 2} warm-up runs.
     *
     * @return the sorted latencies in ns
     */
    static long[] time(int ops, Op op) throws Exception {
        for (int i = 0; i < ops / 2; i++) {
            op.run(i);
        }
        long[] t = new long[ops];
        for (int i = 0; i < ops; i++) {
            long s = System.nanoTime();
            op.run(i);
            t[i] = System.nanoTime() - s;
        }
        Arrays.sort(t);
        return t;
    }

    /** @return the {@code p}-th percentile of sorted values (0 if none) */
    static long pct(long[] sorted, int p) {
        return sorted.length == 0 ? 0 : sorted[Math.min(sorted.length - 1, (int) ((long) sorted.length * p / 100))];
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
