package io.softcmi.benchmarks.cluster;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiVersion;
import io.softcmi.cmi.NodeAddress;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Whole-cluster benchmark of the remote data path under load (a program, not a timed test).
 * Two {@code cmid} daemons on loopback; a segment homed on node 1 (exported write-through, so
 * that every read is a round trip) is read by clients joined to
 * node 2, with 8-byte remote {@code getLong} back to back. Every figure is compared, in the same
 * run, with raw Java TCP doing the same exchange (72-byte request, 32-byte reply):
 * <ul>
 *   <li><b>fan-in</b>: aggregate throughput and p50/p99 for 1..64 concurrent contexts, each on its
 *       own thread, in one client process or spread over several, against the classic blocking
 *       thread-per-connection echo server with the same number of client threads and processes;</li>
 *   <li><b>threads</b>: one context whose N threads read at once, pipelined on the context's one
 *       connection, or with one connection per thread ({@code softcmi.data.connectionPerThread});</li>
 *   <li><b>busy</b>: one client while a separate process keeps one compute thread per core
 *       busy, against raw polling and raw blocking ping-pong under the same load.</li>
 * </ul>
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.softcmi.benchmarks.cluster.FanInBenchmark \
 *     [--contexts 1,2,4,8,16,32,64] [--procs 1,4] [--seconds 2] [--busy | --threads] [--rounds K] [--io-threads N]
 *     [--csv FILE] [--png FILE]
 * </pre>
 *
 * <p>{@code --rounds K} (fan-in and busy) first runs one softcmi point that is printed and not
 * counted (the home daemon's JIT warm-up), then measures each point K times, softcmi and raw alternating
 * (fan-in: softcmi first in odd rounds, raw first in even ones; busy: softcmi, the polling and the
 * blocking ping-pong in that order every round), and after the rounds prints the
 * median and range of the ratios the targets name ({@link RoundRatios}): fan-in ops/s and
 * p99 against the raw server; busy p50 and p99 against the better of the two raw ping-pongs. The
 * CSV and the plot take the first round.
 */
public final class FanInBenchmark {
    /** Milliseconds the workers run untimed before each point ({@code -Dbench.fanin.warmUpMs=N}, default 1500). */
    private static final long WARM_UP_MS = Long.getLong("bench.fanin.warmUpMs", 1500);

    private FanInBenchmark() {
    }

    /**
     * One measured point. {@code serverCpuUs} and {@code clientCpuUs} are CPU microseconds per
     * operation over the measured window: of the server process (the home daemon, or the raw
     * server) and of all client processes together; -1 where not measured.
     */
    record Point(String system, int contexts, int procs, double opsPerSec, double p50us, double p99us,
            double serverCpuUs, double clientCpuUs) {
    }

    /**
     * Entry point.
     *
     * @param args see the class comment
     * @throws Exception if the cluster cannot be set up
     */
    public static void main(String[] args) throws Exception {
        int[] contexts = {1, 2, 4, 8, 16, 32, 64};
        int[] procs = {1, 4};
        double seconds = 2;
        boolean busy = false;
        boolean threads = false;
        Path csv = null;
        Path png = null;
        String ioThreads = "0";
        int rounds = 1;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--contexts" -> contexts = ints(args[++i]);
                case "--procs" -> procs = ints(args[++i]);
                case "--seconds" -> seconds = Double.parseDouble(args[++i]);
                case "--busy" -> busy = true;
                case "--threads" -> threads = true;
                case "--csv" -> csv = Path.of(args[++i]);
                case "--png" -> png = Path.of(args[++i]);
                case "--io-threads" -> ioThreads = args[++i];
                case "--rounds" -> rounds = RoundRatios.count(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        long durationMs = (long) (seconds * 1000);
        Path dir = Files.createTempDirectory("softcmi-fanin-");
        List<Process> daemons = new ArrayList<>();
        List<Point> points = new ArrayList<>();
        CmiContext home = null;
        try {
            Path key = dir.resolve("cluster.key");
            Files.write(key, java.security.SecureRandom.getInstanceStrong().generateSeed(32));
            Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
            for (int n = 1; n <= 2; n++) {
                daemons.add(ChildProcesses.start(l -> l.startsWith("cmid:"), List.of(), "io.softcmi.node.Cmid", "--dir", dir.resolve("n" + n).toString(),
                    "--listen", "127.0.0.1:0", "--cluster-key", key.toString(), "--name", "fanin" + n, "--io-threads", ioThreads,
                    "--shm-dir", "/dev/shm/softcmi-fanin-" + ProcessHandle.current().pid() + "-" + n));
            }
            System.setProperty("softcmi.node", dir.resolve("n1").toString());
            home = Cmi.init(new CmiVersion(1, 1));
            CmiSegment s = home.segGet(1 << 16, Set.of());
            byte[] handle = home.segExp(s, Set.of(io.softcmi.cmi.ExportAttr.WRITE_THROUGH)).toBytes(); // every access is a round trip
            byte[] token = home.tokNew(s, NodeAddress.ANY, EnumSet.of(Access.READ, Access.WRITE)).toBytes();
            Path handleFile = dir.resolve("handle");
            Files.writeString(handleFile, HexFormat.of().formatHex(handle) + "\n" + HexFormat.of().formatHex(token) + "\n");
            int rawPort = ChildProcesses.rawTcpPort(daemons, "server", "72", "32");
            int rawPollPort = ChildProcesses.rawTcpPort(daemons, "pollserver", "72", "32");
            String node2 = dir.resolve("n2").toString();
            System.out.printf(Locale.ROOT, "remote getLong under load, 2 daemons on loopback, %d cores, %.1f s per point%n",
                Runtime.getRuntime().availableProcessors(), seconds);
            System.out.printf(Locale.ROOT, "%-28s %8s %6s %12s %10s %10s %12s %12s%n", "system", "contexts", "procs", "ops/s",
                "p50 us", "p99 us", "server cpu/op", "client cpu/op");
            ProcessHandle homeDaemon = daemons.get(0).toHandle();
            ProcessHandle rawServer = daemons.get(2).toHandle();
            ProcessHandle rawPollServer = daemons.get(3).toHandle();
            if (threads) {
                // One context, many threads: pipelined on one connection, or one connection per thread.
                for (int c : contexts) {
                    points.add(print(run("one context, pipelined", dir, c, 1, durationMs, "cmishared", homeDaemon,
                        new String[] {node2, handleFile.toString()}, List.of())));
                    points.add(print(run("one context, conn per thread", dir, c, 1, durationMs, "cmishared", homeDaemon,
                        new String[] {node2, handleFile.toString()}, List.of("-Dsoftcmi.data.connectionPerThread=true"))));
                    points.add(print(run("raw TCP blocking server", dir, c, 1, durationMs, "raw", rawServer,
                        new String[] {Integer.toString(rawPort)}, List.of())));
                }
            } else if (busy) {
                Process burner = ChildProcesses.start(l -> l.startsWith("BURNING"), List.of(), Burner.class.getName());
                try {
                    Thread.sleep(500);
                    if (rounds > 1) {
                        warmUp(dir, 1, 1, durationMs, homeDaemon, node2, handleFile);
                    }
                    RoundRatios p50 = new RoundRatios("busy p50, softcmi / the better raw");
                    RoundRatios p99 = new RoundRatios("busy p99, softcmi / the better raw");
                    for (int r = 0; r < rounds; r++) {
                        Point soft = print(run("busy: softcmi getLong", dir, 1, 1, durationMs, "cmi", homeDaemon,
                            new String[] {node2, handleFile.toString()}, List.of()));
                        Point poll = print(run("busy: raw TCP polling", dir, 1, 1, durationMs, "rawpoll", rawPollServer,
                            new String[] {Integer.toString(rawPollPort)}, List.of()));
                        Point block = print(run("busy: raw TCP blocking", dir, 1, 1, durationMs, "raw", rawServer,
                            new String[] {Integer.toString(rawPort)}, List.of()));
                        if (r == 0) {
                            points.addAll(List.of(soft, poll, block));
                        }
                        p50.add(soft.p50us() / Math.min(poll.p50us(), block.p50us()));
                        p99.add(soft.p99us() / Math.min(poll.p99us(), block.p99us()));
                    }
                    if (rounds > 1) {
                        System.out.println(p50.summary());
                        System.out.println(p99.summary());
                    }
                } finally {
                    burner.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } else {
                if (rounds > 1) {
                    warmUp(dir, contexts[0], Math.min(procs[0], contexts[0]), durationMs, homeDaemon, node2, handleFile);
                }
                for (int p : procs) {
                    for (int c : contexts) {
                        if (p > c) {
                            continue;
                        }
                        String point = c + " contexts, " + p + (p == 1 ? " process" : " processes");
                        RoundRatios ops = new RoundRatios("ops/s, softcmi / raw server, " + point);
                        RoundRatios p99 = new RoundRatios("p99, softcmi / raw server, " + point);
                        for (int r = 0; r < rounds; r++) {
                            Point soft = null;
                            Point raw = null;
                            for (int k = 0; k < 2; k++) {
                                if ((k == 0) == (r % 2 == 0)) {
                                    soft = print(run("softcmi getLong", dir, c, p, durationMs, "cmi", homeDaemon,
                                        new String[] {node2, handleFile.toString()}, List.of()));
                                } else {
                                    raw = print(run("raw TCP blocking server", dir, c, p, durationMs, "raw", rawServer,
                                        new String[] {Integer.toString(rawPort)}, List.of()));
                                }
                            }
                            if (r == 0) {
                                points.addAll(List.of(soft, raw));
                            }
                            ops.add(soft.opsPerSec() / raw.opsPerSec());
                            p99.add(soft.p99us() / raw.p99us());
                        }
                        if (rounds > 1) {
                            System.out.println(ops.summary());
                            System.out.println(p99.summary());
                        }
                    }
                }
            }
            if (csv != null) {
                StringBuilder b = new StringBuilder("system,contexts,procs,ops_per_s,p50_us,p99_us,server_cpu_us_per_op,client_cpu_us_per_op\n");
                for (Point pt : points) {
                    b.append(String.format(Locale.ROOT, "%s,%d,%d,%.0f,%.1f,%.1f,%.2f,%.2f%n", pt.system(), pt.contexts(), pt.procs(),
                        pt.opsPerSec(), pt.p50us(), pt.p99us(), pt.serverCpuUs(), pt.clientCpuUs()));
                }
                Files.writeString(csv, b);
            }
            if (png != null && !busy) {
                FanInPlot.draw(points, png);
            }
        } finally {
            if (home != null) {
                home.fini();
            }
            ChildProcesses.stop(daemons);
            try (var files = Files.walk(dir)) {
                files.sorted((x, y) -> y.compareTo(x)).forEach(f -> f.toFile().delete());
            }
        }
    }

    /**
     * One softcmi point that is printed and not counted, before the rounds: the home daemon's
     * code is compiled by the JIT during its first seconds of requests, and without this the
     * first round's softcmi point (softcmi goes first in odd rounds) measures a cold daemon,
     * where a user's long-lived daemon is warm. The raw servers are a few lines each and warm
     * within their workers' warm-up.
     */
    private static void warmUp(Path dir, int contexts, int procs, long durationMs, ProcessHandle homeDaemon, String node2,
            Path handleFile) throws Exception {
        print(run("softcmi warm-up, not counted", dir, contexts, procs, durationMs, "cmi", homeDaemon,
            new String[] {node2, handleFile.toString()}, List.of()));
    }

    private static Point print(Point p) {
        System.out.printf(Locale.ROOT, "%-28s %8d %6d %12.0f %10.1f %10.1f %12.2f %12.2f%n", p.system(), p.contexts(), p.procs(),
            p.opsPerSec(), p.p50us(), p.p99us(), p.serverCpuUs(), p.clientCpuUs());
        return p;
    }

    /**
     * Runs {@code contexts} client threads spread over {@code procs} worker processes, and measures
     * the CPU time of {@code server} over the same window.
     */
    private static Point run(String name, Path dir, int contexts, int procs, long durationMs, String mode, ProcessHandle server,
            String[] target, List<String> jvmOptions) throws Exception {
        Path go = dir.resolve("go-" + System.nanoTime());
        List<Process> workers = new ArrayList<>();
        List<Path> outs = new ArrayList<>();
        try {
            for (int w = 0; w < procs; w++) {
                int threads = contexts / procs + (w < contexts % procs ? 1 : 0);
                Path out = dir.resolve("out-" + w + "-" + System.nanoTime());
                outs.add(out);
                List<String> a = new ArrayList<>(List.of(FanInWorker.class.getName(), mode));
                a.addAll(List.of(target));
                a.addAll(List.of(Integer.toString(threads), go.toString(), Long.toString(durationMs), out.toString()));
                workers.add(ChildProcesses.start(l -> l.equals("READY"), jvmOptions, a.toArray(String[]::new)));
            }
            Thread.sleep(WARM_UP_MS); // the workers warm up meanwhile
            Files.createFile(go);
            long serverCpu0 = cpuNanos(server);
            Thread.sleep(durationMs);
            long serverCpu = cpuNanos(server) - serverCpu0;
            long clientCpu = 0;
            long total = 0;
            List<long[]> samples = new ArrayList<>();
            for (int w = 0; w < procs; w++) {
                if (!workers.get(w).waitFor(durationMs + 60_000, TimeUnit.MILLISECONDS)) {
                    throw new IOException("worker did not finish");
                }
                try (DataInputStream d = new DataInputStream(Files.newInputStream(outs.get(w)))) {
                    total += d.readLong();
                    long[] s = new long[d.readInt()];
                    for (int i = 0; i < s.length; i++) {
                        s[i] = d.readLong();
                    }
                    samples.add(s);
                    long cpu = d.readLong();
                    clientCpu = clientCpu < 0 || cpu < 0 ? -1 : clientCpu + cpu;
                }
            }
            long[] all = samples.stream().flatMapToLong(Arrays::stream).sorted().toArray();
            return new Point(name, contexts, procs, total * 1000.0 / durationMs, ChildProcesses.pct(all, 50) / 1e3,
                ChildProcesses.pct(all, 99) / 1e3, perOp(serverCpu, total), perOp(clientCpu, total));
        } finally {
            for (Process p : workers) {
                p.destroyForcibly();
            }
        }
    }

    /** @return the process's CPU time (user and system) so far, in nanoseconds, or -1 if unknown */
    private static long cpuNanos(ProcessHandle p) {
        return p.info().totalCpuDuration().map(java.time.Duration::toNanos).orElse(-1L);
    }

    /** @return CPU microseconds per operation, or -1 if not measured */
    private static double perOp(long cpuNanos, long ops) {
        return cpuNanos < 0 || ops == 0 ? -1 : cpuNanos / 1e3 / ops;
    }

    private static int[] ints(String s) {
        return Arrays.stream(s.split(",")).mapToInt(Integer::parseInt).toArray();
    }

    /** Keeps one compute thread per core busy until killed. */
    public static final class Burner {
        private Burner() {
        }

        /**
         * Entry point.
         *
         * @param args none
         */
        public static void main(String[] args) {
            int n = Runtime.getRuntime().availableProcessors();
            for (int i = 0; i < n; i++) {
                Thread.ofPlatform().start(() -> {
                    double x = 1;
                    while (x != 0) {
                        x = Math.sin(x) + 1.000001;
                    }
                });
            }
            System.out.println("BURNING " + n);
            System.out.flush();
        }
    }
}
