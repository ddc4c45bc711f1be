package io.softcmi.benchmarks.cluster;

import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiVersion;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Latency of control calls against a real {@code cmid} (a program, not a timed test): a
 * process's {@code ctlInfo} and {@code segStatus} round trips over the node's Unix-domain
 * socket, against, in the same run, a raw Unix-domain socket ping-pong with a peer in another
 * process (the same frame sizes), once with both ends polling and once with both blocking.
 * Then the same calls once warm: after {@link #WARM_SECONDS} more of calls and raw round trips
 * (both JVMs' JIT compilers idle by then), in {@link #BLOCKS} blocks each of the raw polling
 * ping-pong, {@code ctlInfo} and {@code segStatus}, alternating, so that all three come from
 * the same seconds.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.softcmi.benchmarks.cluster.ControlPathBenchmark [OPS]
 * </pre>
 */
public final class ControlPathBenchmark {
    /**
     * Seconds of untimed calls and raw round trips before the warm figures
     * ({@code -Dbench.control.warmSeconds=N}, default 5): measured 2026-11-28, a fresh run's
     * calls after 10,000 warm-up calls were 1.3-1.6x the raw ping-pong, the same calls after
     * 150,000 1.1-1.5x (docs/benchmarks.md).
     */
    private static final int WARM_SECONDS = Integer.getInteger("bench.control.warmSeconds", 5);
    /** Timed blocks of each kind in the warm figures. */
    private static final int BLOCKS = 5;

    private ControlPathBenchmark() {
    }

    /**
     * The warm figures: {@link #WARM_SECONDS} of untimed calls and raw round trips, then
     * {@link #BLOCKS} blocks of each, alternating, the raw ones on a connection of their own
     * (the peer's thread polls only while it is open).
     */
    private static void warm(Path dir, List<Process> children, int ops, CmiContext c, CmiSegment s) throws Exception {
        Path sock = dir.resolve("raw-warm.sock");
        children.add(ChildProcesses.start(l -> l.equals("READY"), List.of(), RawUnixPeer.class.getName(), sock.toString(),
            "16", "100", "poll"));
        long start = System.nanoTime();
        long untimed = 0;
        while (System.nanoTime() - start < WARM_SECONDS * 1_000_000_000L) {
            for (int i = 0; i < 1000; i++) {
                c.ctlInfo();
                c.segStatus(s);
            }
            rawRounds(sock, 1000, null, 0);
            untimed += 1000;
        }
        int block = Math.max(1, ops / BLOCKS);
        long[] poll = new long[block * BLOCKS];
        long[] info = new long[block * BLOCKS];
        long[] status = new long[block * BLOCKS];
        for (int b = 0; b < BLOCKS; b++) {
            rawRounds(sock, block, poll, b * block);
            for (int i = 0; i < block; i++) {
                long t = System.nanoTime();
                c.ctlInfo();
                info[b * block + i] = System.nanoTime() - t;
            }
            for (int i = 0; i < block; i++) {
                long t = System.nanoTime();
                c.segStatus(s);
                status[b * block + i] = System.nanoTime() - t;
            }
        }
        java.util.Arrays.sort(poll);
        java.util.Arrays.sort(info);
        java.util.Arrays.sort(status);
        System.out.printf(Locale.ROOT, "warm: after %d s more, %d of each call and raw round trip untimed; %d blocks of each, alternating%n",
            WARM_SECONDS, untimed, BLOCKS);
        row("raw Unix socket ping-pong, polling, warm", poll, poll);
        row("ctlInfo, warm", info, poll);
        row("segStatus, warm", status, poll);
    }

    /**
     * Round trips of the raw polling ping-pong on a connection of their own: {@code ops} untimed
     * ones if {@code times} is null, else up to 500 untimed ones and then {@code ops} timed into
     * {@code times} from {@code at}.
     */
    private static void rawRounds(Path sock, int ops, long[] times, int at) throws Exception {
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(sock));
            ch.configureBlocking(false);
            ByteBuffer req = ByteBuffer.allocateDirect(16);
            ByteBuffer rep = ByteBuffer.allocateDirect(100);
            int warmUp = times == null ? ops : Math.min(ops, 500);
            for (int i = 0; i < warmUp + (times == null ? 0 : ops); i++) {
                long t = System.nanoTime();
                RawTcpPeer.exchange(ch, req, rep);
                if (i >= warmUp) {
                    times[at + i - warmUp] = System.nanoTime() - t;
                }
            }
        }
    }

    /**
     * Entry point.
     *
     * @param args OPS (default 20000)
     * @throws Exception on set-up failure
     */
    public static void main(String[] args) throws Exception {
        int ops = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        Path dir = Files.createTempDirectory("softcmi-ctl-");
        List<Process> children = new ArrayList<>();
        try {
            children.add(ChildProcesses.start(l -> l.startsWith("cmid:"), List.of(), "io.softcmi.node.Cmid", "--dir",
                dir.resolve("n").toString(), "--name", "ctlbench",
                "--shm-dir", "/dev/shm/softcmi-ctlbench-" + ProcessHandle.current().pid()));
            System.setProperty("softcmi.node", dir.resolve("n").toString());
            CmiContext c = Cmi.init(new CmiVersion(1, 1));
            CmiSegment s = c.segGet(1 << 16, Set.of());
            long[] poll = raw(dir, children, ops, "poll");
            long[] block = raw(dir, children, ops, "block");
            long[] info = ChildProcesses.time(ops, i -> c.ctlInfo());
            long[] status = ChildProcesses.time(ops, i -> c.segStatus(s));
            System.out.printf(Locale.ROOT, "control path, one cmid, %d round trips each (after %d warm-up)%n", ops, ops / 2);
            System.out.printf(Locale.ROOT, "%-40s %8s %8s %10s%n", "operation", "p50 us", "p99 us", "p50/poll");
            row("raw Unix socket ping-pong, polling", poll, poll);
            row("raw Unix socket ping-pong, blocking", block, poll);
            row("ctlInfo (cmi_ctl CMI_CTL_INFO)", info, poll);
            row("segStatus (seg_ctl CMI_SEG_STATUS)", status, poll);
            warm(dir, children, ops, c, s);
            c.segRemove(s);
            c.fini();
        } finally {
            ChildProcesses.stop(children);
            try (var files = Files.walk(dir)) {
                files.sorted((x, y) -> y.compareTo(x)).forEach(f -> f.toFile().delete());
            }
        }
    }

    private static void row(String name, long[] t, long[] base) {
        System.out.printf(Locale.ROOT, "%-40s %8.1f %8.1f %10.2f%n", name, t[t.length / 2] / 1e3,
            t[Math.min(t.length - 1, t.length * 99 / 100)] / 1e3, (double) t[t.length / 2] / base[base.length / 2]);
    }

    /** The control frames of ctlInfo are about 16 bytes out and 100 back. */
    private static long[] raw(Path dir, List<Process> children, int ops, String mode) throws Exception {
        Path sock = dir.resolve("raw-" + mode + ".sock");
        children.add(ChildProcesses.start(l -> l.equals("READY"), List.of(), RawUnixPeer.class.getName(), sock.toString(),
            "16", "100", mode));
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(sock));
            ch.configureBlocking(!mode.equals("poll"));
            ByteBuffer req = ByteBuffer.allocateDirect(16);
            ByteBuffer rep = ByteBuffer.allocateDirect(100);
            return ChildProcesses.time(ops, i -> {
                req.clear();
                while (req.hasRemaining()) {
                    ch.write(req);
                }
                rep.clear();
                while (rep.hasRemaining()) {
                    ch.read(rep);
                }
            });
        }
    }

}
