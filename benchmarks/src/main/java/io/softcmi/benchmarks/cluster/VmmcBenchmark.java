package io.softcmi.benchmarks.cluster;

import io.softcmi.vmmc.samples.BidirBandwidth;
import io.softcmi.vmmc.samples.Latency;
import io.softcmi.vmmc.samples.OnewayBandwidth;
import io.softcmi.vmmc.samples.PPBandwidth;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * VMMC on two {@code cmid} daemons against the raw TCP baseline of the same run: the
 * {@code latency} sample (one-word SendDataNotify ping-pong, the peer spawned on the second
 * node) against a polling raw TCP ping-pong of 4 bytes (2 hops per round trip) and against the
 * raw limit of the shape the issue mandates, each message through the receiver's node daemon: a
 * plain-Java TCP relay ring A &rarr; R_B &rarr; B &rarr; R_A &rarr; A of 4-byte messages (4 hops,
 * 4 processes; {@link RelayRoundTrip}), once with every hop polling and once with blocking reads,
 * each with p50/p99 and the ratio of VMMC's p50 to its p50 (with the blocking 2-hop ping-pong of
 * the same ring code beside them; a ring stops after {@code -Dbench.relaySeconds}, default 10 s,
 * of timed round trips, and the row says how many it timed); and the {@code OnewayBandwidth} sample
 * from 4 B to 4 MiB against a raw TCP stream of the same chunk sizes (one 1-byte ack per chunk,
 * and VMMC's one notification ack per size, are both counted); the {@code BidirBandwidth} sample
 * (both nodes send to each other at once) from 4 B to 4 MiB against the raw bidirectional stream
 * of the same shape ({@link RawBidirStream}); then the large sizes (1, 2, 4 MiB) again in
 * {@code -Dbench.rounds} rounds (default 5; 0 skips them), raw and VMMC alternately in each round,
 * one-way and bidirectional, with each round's figures, the medians and the ratio of the medians.
 * With {@code -Dbench.png=FILE}, the one-way and bidirectional sweeps are also drawn, VMMC beside
 * its raw baseline, as a PNG ({@link LogLogPlot}). The {@code latency} sample times its round trips after
 * its default warm-up (a tenth of them untimed first, at least 20,000: {@link Latency#warmUp}),
 * and the raw ping-pong gets as many untimed round trips; it runs a second time as in fresh JVMs,
 * with a tenth of its round trips untimed and no more ({@code -Dvmmc.latency.warmup}: the JIT is
 * still compiling), and with {@code -Dbench.warmLatency=N} (default 0, none) a third time with N
 * round trips. {@code -Dbench.latencyJvm="OPTIONS"} adds
 * JVM options to the latency sample's master, such as {@code -XX:AOTCache=FILE} (docs/vmmc.md,
 * "Warm-up"), which it passes on to the peer it spawns. {@code -Dbench.fromWords} and
 * {@code -Dbench.toWords} (default 1 and 262144, in 4-byte words) bound both sweeps, to profile
 * one size. With {@code -Dbench.pingpong=N} the {@code PPBandwidth} sample runs the same sizes
 * too, N round trips per size (no raw baseline), once as the manual's (a SendDataNotify each
 * way) and once with each message sent as its words and a one-word flag after them
 * ({@code -Dvmmc.bandwidth.flag=true}). {@code -Dvmmc.samples.copiedBuffers=true}
 * (passed on to the samples, as every {@code vmmc.*} property) makes the samples' receive buffers
 * ordinary memory, which the receiver copies every message into, instead of
 * {@code Vmmc.allocate}'s, which receives in place.
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar \
 *      io.softcmi.benchmarks.cluster.VmmcBenchmark [PINGPONGS] [BW_ITERATIONS] [SECONDS_PER_SIZE]
 * </pre>
 *
 * Each bandwidth size, VMMC and raw alike, sends at least {@code BW_ITERATIONS} messages and
 * keeps sending for at least {@code SECONDS_PER_SIZE} (default 1; the sample's
 * {@code vmmc.bandwidth.seconds}), so that small counts do not make the figures noise; in the
 * bidirectional sizes each side sends at least {@code -Dbench.bidirIterations} messages (default
 * 200) for at least {@code SECONDS_PER_SIZE}, raw and VMMC alike (until 2026-11-27 exactly that
 * many, which timed 1 MiB in about 0.1 s of fresh sample JVMs). The
 * benchmark's own {@code vmmc.*} system properties (such as {@code -Dvmmc.sendWindow=0}) are
 * passed on to the samples it starts.
 */
public final class VmmcBenchmark {
    private VmmcBenchmark() {
    }

    /**
     * Entry point.
     *
     * @param args round trips (default 5000; 0 skips the latency part), bandwidth iterations per size at least (default 50),
     *     seconds per size at least (default 1)
     * @throws Exception if the cluster cannot be set up or a sample fails
     */
    public static void main(String[] args) throws Exception {
        int ops = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
        int bwIters = args.length > 1 ? Integer.parseInt(args[1]) : 50;
        double seconds = args.length > 2 ? Double.parseDouble(args[2]) : 1.0;
        int rounds = Integer.getInteger("bench.rounds", 5);
        int bidirIters = Integer.getInteger("bench.bidirIterations", 200);
        // The sweeps' first and last sizes in words (-Dbench.fromWords=16384 -Dbench.toWords=16384: 64 KiB only, for a profile).
        String fromWords = Integer.toString(Integer.getInteger("bench.fromWords", 1));
        String toWords = Integer.toString(Integer.getInteger("bench.toWords", 1 << 20));
        Path dir = Files.createTempDirectory("softcmi-vmmc-bench-");
        List<Process> children = new ArrayList<>();
        try {
            Path key = dir.resolve("cluster.key");
            Files.write(key, java.security.SecureRandom.getInstanceStrong().generateSeed(32));
            Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
            for (int n = 1; n <= 2; n++) {
                children.add(start("cmid:", Map.of(), "io.softcmi.node.Cmid", "--dir", dir.resolve("n" + n).toString(),
                    "--listen", "127.0.0.1:0", "--cluster-key", key.toString(), "--name", "vbench" + n,
                    "--shm-dir", "/dev/shm/softcmi-vbench-" + ProcessHandle.current().pid() + "-" + n).process);
            }
            Map<String, String> env = new LinkedHashMap<>();
            env.put("VMMCSESSION", "bench");
            env.put("VMMCHOSTS", "n1=" + dir.resolve("n1") + ",n2=" + dir.resolve("n2"));
            env.put("VMMCHOST", "n1");
            env.put("VMMCSHARE", dir.resolve("share").toString());
            env.put("VMMCOUTDIR", dir.resolve("out").toString());
            env.put("SOFTCMI_NODE", dir.resolve("n1").toString());

            StringBuilder out = new StringBuilder();
            if (ops > 0) { // 0: bandwidth only
                long[] raw = rawPingPong(ops, Latency.warmUp(ops), children);
                // The floor of the mandated shape: each message through the receiver's daemon (RelayRoundTrip).
                long[] pingBlock = RelayRoundTrip.roundTrips(ops, 4, 2, false);
                long[] relayPoll = RelayRoundTrip.roundTrips(ops, 4, 4, true);
                long[] relayBlock = RelayRoundTrip.roundTrips(ops, 4, 4, false);
                String lat = runToEnd(env, Latency.class.getName(), "1", Integer.toString(ops));
                int freshWarmUp = Math.max(1, ops / 10);
                String fresh = runToEnd(env, "-Dvmmc.latency.warmup=" + freshWarmUp, Latency.class.getName(), "1",
                    Integer.toString(ops));
                double vmmcP50 = Double.parseDouble(lat.replaceAll("(?s).*p50 ([0-9.]+) us.*", "$1"));
                double vmmcP99 = Double.parseDouble(lat.replaceAll("(?s).*p99 ([0-9.]+) us.*", "$1"));
                out.append(String.format(Locale.ROOT, "%nlatency, %d round trips after %d untimed, two daemons on loopback%n", ops,
                    Latency.warmUp(ops)));
                out.append(String.format(Locale.ROOT, "%-58s %10s %10s %12s%n", "", "p50 us", "p99 us", "VMMC / this"));
                rawRow(out, "raw TCP ping-pong, 4 B, polling (2 hops)", raw, vmmcP50);
                rawRow(out, "raw TCP ping-pong A>B>A, 4 B, blocking (2 hops)", pingBlock, vmmcP50);
                rawRow(out, "raw TCP relay A>R_B>B>R_A>A, 4 B, polling (4 hops)", relayPoll, vmmcP50);
                rawRow(out, "raw TCP relay A>R_B>B>R_A>A, 4 B, blocking (4 hops)", relayBlock, vmmcP50);
                out.append(String.format(Locale.ROOT, "%-58s %10.1f %10.1f%n", "VMMC latency 1 word (SendDataNotify both ways)",
                    vmmcP50, vmmcP99));
                deliveryRow(out, "  delivery: SendDataNotify returned > peer's handler", lat);
                // The same in fresh JVMs: the JIT compiles the path during the first 10,000-15,000 round trips.
                out.append(String.format(Locale.ROOT, "%-58s %10.1f %10.1f%n", String.format(Locale.ROOT,
                    "the same in fresh JVMs, after %d untimed", freshWarmUp),
                    Double.parseDouble(fresh.replaceAll("(?s).*p50 ([0-9.]+) us.*", "$1")),
                    Double.parseDouble(fresh.replaceAll("(?s).*p99 ([0-9.]+) us.*", "$1"))));
                deliveryRow(out, "  delivery, the same fresh run", fresh);
                if (WARM_LATENCY_ROUND_TRIPS > 0) {
                    String warm = runToEnd(env, Latency.class.getName(), "1", Integer.toString(WARM_LATENCY_ROUND_TRIPS));
                    out.append(String.format(Locale.ROOT, "%-58s %10.1f %10.1f%n", String.format(Locale.ROOT,
                        "the same, %d round trips after %d untimed", WARM_LATENCY_ROUND_TRIPS, Latency.warmUp(WARM_LATENCY_ROUND_TRIPS)),
                        Double.parseDouble(warm.replaceAll("(?s).*p50 ([0-9.]+) us.*", "$1")),
                        Double.parseDouble(warm.replaceAll("(?s).*p99 ([0-9.]+) us.*", "$1"))));
                    deliveryRow(out, "  delivery, the same warmed-up run", warm);
                }
            }

            List<double[]> vmmcOneWay = new ArrayList<>();
            List<double[]> rawOneWay = new ArrayList<>();
            List<double[]> vmmcBidir = new ArrayList<>();
            List<double[]> rawBidir = new ArrayList<>();
            String bw = runToEnd(env, "-Dvmmc.bandwidth.seconds=" + seconds, OnewayBandwidth.class.getName(),
                Integer.toString(bwIters), fromWords, toWords);
            out.append(String.format(Locale.ROOT, "%none-way bandwidth, at least %d messages and %.1f s per size%n",
                bwIters, seconds));
            out.append(String.format(Locale.ROOT, "%12s %14s %10s %14s %10s %8s%n", "bytes", "VMMC MB/s", "messages",
                "raw TCP MB/s", "messages", "ratio"));
            for (Map.Entry<Integer, VmmcBandwidth.Point> e : VmmcBandwidth.parse(bw).entrySet()) {
                int bytes = e.getKey();
                double v = e.getValue().mbPerSecond();
                long vCount = e.getValue().messages();
                double[] r = rawStream(bytes, bwIters, seconds, children);
                vmmcOneWay.add(new double[] {bytes, v});
                rawOneWay.add(new double[] {bytes, r[0]});
                out.append(String.format(Locale.ROOT, "%12d %14.2f %10s %14.2f %10d %8.2f%n", bytes, v,
                    vCount >= 0 ? Long.toString(vCount) : "?", r[0], (long) r[1], v / r[0]));
            }
            System.out.print(out);
            out.setLength(0);

            String bidir = runToEnd(env, "-Dvmmc.bandwidth.seconds=" + seconds, BidirBandwidth.class.getName(),
                Integer.toString(bidirIters), fromWords, toWords);
            out.append(String.format(Locale.ROOT, "%nbidirectional bandwidth, at least %d messages each way and %.1f s"
                + " per size, both directions counted%n", bidirIters, seconds));
            out.append(String.format(Locale.ROOT, "%12s %14s %14s %8s%n", "bytes", "VMMC MB/s", "raw TCP MB/s", "ratio"));
            for (Map.Entry<Integer, VmmcBandwidth.Point> e : VmmcBandwidth.parse(bidir).entrySet()) {
                double v = e.getValue().mbPerSecond();
                double r = RawBidirStream.run(e.getKey(), bidirIters, seconds, children).mbPerSecond();
                vmmcBidir.add(new double[] {e.getKey(), v});
                rawBidir.add(new double[] {e.getKey(), r});
                out.append(String.format(Locale.ROOT, "%12d %14.2f %14.2f %8.2f%n", e.getKey(), v, r, v / r));
            }
            System.out.print(out);
            out.setLength(0);
            if (PINGPONG_ROUND_TRIPS > 0) {
                pingPong(out, env, fromWords, toWords);
            }
            String png = System.getProperty("bench.png");
            if (png != null) {
                LogLogPlot.draw(List.of(
                    new LogLogPlot.Panel("one-way bandwidth (MB/s)", "message size", LogLogPlot::bytes, 2, List.of(
                        new LogLogPlot.Series("VMMC OnewayBandwidth", false, vmmcOneWay),
                        new LogLogPlot.Series("raw TCP stream, 1-byte ack per chunk", true, rawOneWay))),
                    new LogLogPlot.Panel("bidirectional bandwidth (MB/s, both directions)", "message size", LogLogPlot::bytes, 2,
                        List.of(new LogLogPlot.Series("VMMC BidirBandwidth", false, vmmcBidir),
                            new LogLogPlot.Series("raw TCP two-way stream", true, rawBidir)))), Path.of(png));
            }
            if (rounds > 0) {
                rounds(out, env, rounds, bwIters, bidirIters, seconds, children);
            }
            System.out.println(out);
        } finally {
            for (Process c : children) {
                c.destroy();
                if (!c.waitFor(10, TimeUnit.SECONDS)) {
                    c.destroyForcibly();
                }
            }
            try (var files = Files.walk(dir)) {
                files.sorted((x, y) -> y.compareTo(x)).forEach(f -> f.toFile().delete());
            }
        }
    }

    /**
     * Round trips per size of the {@code PPBandwidth} sweep ({@code -Dbench.pingpong=N}, default
     * 0: none): a SendDataNotify of each size each way, the next sent once the other's has been
     * handled.
     */
    private static final int PINGPONG_ROUND_TRIPS = Integer.getInteger("bench.pingpong", 0);

    /**
     * The {@code PPBandwidth} sweep ({@link #PINGPONG_ROUND_TRIPS}), both directions counted, no
     * raw baseline: each message a SendDataNotify of its size, then again each message as a
     * SendData of its size and a one-word SendDataNotify of its last word
     * ({@code -Dvmmc.bandwidth.flag=true}: two sizes, the large one's words through the home and
     * the flag through the route).
     */
    private static void pingPong(StringBuilder out, Map<String, String> env, String fromWords, String toWords)
        throws Exception {
        String n = Integer.toString(PINGPONG_ROUND_TRIPS);
        Map<Integer, VmmcBandwidth.Point> notify = VmmcBandwidth.parse(runToEnd(env, PPBandwidth.class.getName(), n,
            fromWords, toWords));
        Map<Integer, VmmcBandwidth.Point> flag = VmmcBandwidth.parse(runToEnd(env, "-Dvmmc.bandwidth.flag=true",
            PPBandwidth.class.getName(), n, fromWords, toWords));
        out.append(String.format(Locale.ROOT, "%nping-pong (PPBandwidth), %d round trips per size, both directions"
            + " counted: SendDataNotify; SendData then a 1-word SendDataNotify flag%n", PINGPONG_ROUND_TRIPS));
        out.append(String.format(Locale.ROOT, "%12s %14s %14s %14s %14s%n", "bytes", "notify MB/s", "round trip us",
            "+flag MB/s", "round trip us"));
        for (Map.Entry<Integer, VmmcBandwidth.Point> e : notify.entrySet()) {
            double a = e.getValue().mbPerSecond();
            VmmcBandwidth.Point f = flag.get(e.getKey());
            double b = f == null ? Double.NaN : f.mbPerSecond();
            out.append(String.format(Locale.ROOT, "%12d %14.2f %14.1f %14.2f %14.1f%n", e.getKey(), a, 2 * e.getKey() / a,
                b, 2 * e.getKey() / b));
        }
        System.out.print(out);
        out.setLength(0);
    }

    /**
     * Round trips of a third, longer run of the {@code latency} sample (after its default warm-up):
     * {@code -Dbench.warmLatency}, default 0 (none).
     */
    private static final int WARM_LATENCY_ROUND_TRIPS = Integer.getInteger("bench.warmLatency", 0);

    /** The large sizes measured in rounds, in 4-byte words: 1, 2 and 4 MiB. */
    private static final long[] ROUND_WORDS = {1 << 18, 1 << 19, 1 << 20};

    /**
     * The large sizes again, {@code rounds} times, each round raw one-way, VMMC one-way, raw
     * bidirectional, VMMC bidirectional, so that the raw and VMMC figures of a size come from the
     * same minutes; each sample run covers the three sizes once (its JVM and peer start before its
     * timed part). Each sample run starts at 256 KiB, two sizes below the first one kept: a
     * fresh sample JVM timed its first size before the JIT had compiled the send path (1 MiB came
     * out at half the sweep's figure when it was the first size).
     */
    private static void rounds(StringBuilder out, Map<String, String> env, int rounds, int bwIters, int bidirIters,
        double seconds, List<Process> children) throws Exception {
        List<Integer> sizes = new ArrayList<>();
        for (long w : ROUND_WORDS) {
            sizes.add((int) (w * 4));
        }
        double[][][] f = new double[4][sizes.size()][rounds]; // raw 1-way, VMMC 1-way, raw bidir, VMMC bidir
        String first = Long.toString(ROUND_WORDS[0] / 4); // warm-up sizes, not kept
        String last = Long.toString(ROUND_WORDS[ROUND_WORDS.length - 1]);
        for (int r = 0; r < rounds; r++) {
            for (int s = 0; s < sizes.size(); s++) {
                f[0][s][r] = rawStream(sizes.get(s), bwIters, seconds, children)[0];
            }
            Map<Integer, VmmcBandwidth.Point> one = VmmcBandwidth.parse(runToEnd(env, "-Dvmmc.bandwidth.seconds=" + seconds,
                OnewayBandwidth.class.getName(), Integer.toString(bwIters), first, last));
            for (int s = 0; s < sizes.size(); s++) {
                f[2][s][r] = RawBidirStream.run(sizes.get(s), bidirIters, seconds, children).mbPerSecond();
            }
            Map<Integer, VmmcBandwidth.Point> two = VmmcBandwidth.parse(runToEnd(env, "-Dvmmc.bandwidth.seconds=" + seconds,
                BidirBandwidth.class.getName(),
                Integer.toString(bidirIters), first, last));
            for (int s = 0; s < sizes.size(); s++) {
                f[1][s][r] = one.get(sizes.get(s)).mbPerSecond();
                f[3][s][r] = two.get(sizes.get(s)).mbPerSecond();
            }
        }
        VmmcBandwidth.printRounds(out, String.format(Locale.ROOT, "one-way, %d rounds (raw stream, then VMMC, in each"
            + " round), at least %d messages and %.1f s per size", rounds, bwIters, seconds), sizes, f[0], f[1]);
        VmmcBandwidth.printRounds(out, String.format(Locale.ROOT, "bidirectional, %d rounds (raw, then VMMC, in each"
            + " round), at least %d messages each way and %.1f s per size", rounds, bidirIters, seconds), sizes, f[2], f[3]);
        System.out.println(out);
        out.setLength(0);
    }

    /** A raw baseline's p50 and p99, and VMMC's p50 as a multiple of its p50. */
    private static void rawRow(StringBuilder out, String name, long[] sorted, double vmmcP50) {
        out.append(String.format(Locale.ROOT, "%-58s %10.1f %10.1f %12.2f  %d round trips%n", name, pct(sorted, 50) / 1e3,
            pct(sorted, 99) / 1e3, vmmcP50 / (pct(sorted, 50) / 1e3), sorted.length));
    }

    private static long pct(long[] sorted, int p) {
        return sorted[Math.min(sorted.length - 1, sorted.length * p / 100)];
    }

    /** The polling raw ping-pong: {@code warm} untimed round trips, then {@code ops} timed ones. */
    private static long[] rawPingPong(int ops, int warm, List<Process> children) throws Exception {
        int port = port(children, "echo", "4", "4");
        try (SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", port))) {
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ch.configureBlocking(false);
            ByteBuffer req = ByteBuffer.allocateDirect(4);
            ByteBuffer rep = ByteBuffer.allocateDirect(4);
            long[] t = new long[ops];
            for (int i = -warm; i < ops; i++) {
                long s = System.nanoTime();
                RawTcpPeer.pollRound(ch, req, rep);
                if (i >= 0) {
                    t[i] = System.nanoTime() - s;
                }
            }
            Arrays.sort(t);
            return t;
        }
    }

    /**
     * MB/s (10^6 bytes) and count of at least {@code iters} chunks of {@code bytes} sent for at
     * least {@code seconds}, each acknowledged by the sink.
     */
    private static double[] rawStream(int bytes, int iters, double seconds, List<Process> children) throws Exception {
        int port = port(children, "sink", Integer.toString(bytes));
        try (SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", port))) {
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ByteBuffer chunk = ByteBuffer.allocateDirect(bytes);
            ByteBuffer ack = ByteBuffer.allocateDirect(1);
            long t0 = System.nanoTime();
            long until = t0 + (long) (seconds * 1e9);
            int i = 0;
            for (; i < iters || (System.nanoTime() < until && i < 1_000_000); i++) {
                chunk.clear();
                while (chunk.hasRemaining()) {
                    ch.write(chunk);
                }
                ack.clear();
                while (ack.hasRemaining()) {
                    ch.read(ack);
                }
            }
            return new double[] {(double) bytes * i / ((System.nanoTime() - t0) / 1e9) / 1e6, i};
        }
    }

    private static int port(List<Process> children, String... args) throws IOException {
        String[] full = new String[args.length + 1];
        full[0] = RawTcpPeer.class.getName();
        System.arraycopy(args, 0, full, 1, args.length);
        Started s = start("PORT ", Map.of(), full);
        children.add(s.process);
        return Integer.parseInt(s.line.substring(5).trim());
    }

    private record Started(Process process, String line) {
    }

    private static List<String> command(String... mainAndArgs) {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--enable-native-access=ALL-UNNAMED"));

        // This JVM's vmmc.* settings (vmmc.sendWindow, ...) hold for the samples it starts.
        System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith("vmmc.")).sorted()
            .forEach(k -> cmd.add("-D" + k + "=" + System.getProperty(k)));
        cmd.addAll(io.softcmi.cmi.internal.JitOptions.forChild());
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path")));
        cmd.addAll(List.of(mainAndArgs));
        return cmd;
    }

    private static Started start(String prefix, Map<String, String> env, String... mainAndArgs) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command(mainAndArgs)).redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.environment().putAll(env);
        Process p = pb.start();
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream()));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String l;
        while ((l = r.readLine()) != null && System.nanoTime() < deadline) {
            if (l.startsWith(prefix)) {
                Thread.ofVirtual().start(() -> {
                    try {
                        while (r.readLine() != null) {
                            // keep the pipe from filling
                        }
                    } catch (IOException ignored) {
                        // child gone
                    }
                });
                return new Started(p, l);
            }
        }
        p.destroyForcibly();
        throw new IOException("child " + mainAndArgs[0] + " did not start");
    }

    /** The {@code latency} sample's delivery line (SendDataNotify returned to the peer's handler), as a row. */
    private static void deliveryRow(StringBuilder out, String label, String sampleOutput) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("delivery: .*median ([0-9.]+) us, 99th percentile ([0-9.]+) us")
            .matcher(sampleOutput);
        if (m.find()) {
            out.append(String.format(Locale.ROOT, "%-58s %10s %10s%n", label, m.group(1), m.group(2)));
        }
    }

    /** Runs a VMMC sample as the master on n1 and returns its output. */
    private static String runToEnd(Map<String, String> env, String... mainAndArgs) throws Exception {
        List<String> cmd = command(mainAndArgs);
        // -Dbench.latencyJvm="OPTIONS": JVM options of the latency sample's master (an AOT cache,
        // which RunControl passes on to the peer it spawns; a profiler).
        String latencyJvm = System.getProperty("bench.latencyJvm", "").trim();
        if (!latencyJvm.isEmpty() && List.of(mainAndArgs).contains(Latency.class.getName())) {
            cmd.addAll(1, List.of(latencyJvm.split("\\s+")));
        }
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        try {
            String text = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            if (!p.waitFor(600, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException(mainAndArgs[0] + " failed: " + text);
            }
            return text;
        } finally {
            p.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }
}
