package io.softcmi.benchmarks.cluster;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.CmiVersion;
import io.softcmi.cmi.RemoteSegmentHandle;
import io.softcmi.cmi.notify.Notification;
import io.softcmi.cmi.notify.NotificationInbox;
import io.softcmi.cmi.notify.Notifications;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Whole-cluster benchmark of segment notifications (a program, not a timed test): two
 * {@code cmid} processes on loopback sharing a cluster key. Context A notifies context B, whose
 * handler (on B's handler thread) notifies A back; A waits with {@code take}. The round trip is
 * measured with both contexts on node 1 (the local path, through the daemon) and with A on
 * node 1 and B on node 2 (the remote path, {@code OP_NOTIFY} to the home), against, in the same
 * run, a raw Java TCP ping-pong of 32-byte messages with both ends polling non-blocking sockets,
 * the peer in another process. Both paths are measured again with B's handler registered
 * inline ({@code onNotificationInline}: it runs on B's control reader thread).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.softcmi.benchmarks.cluster.NotificationBenchmark [OPS]
 * </pre>
 */
public final class NotificationBenchmark {
    private static final int RAW_MESSAGE = 32;
    private static final Duration WAIT = Duration.ofSeconds(10);

    private NotificationBenchmark() {
    }

    /**
     * Entry point.
     *
     * @param args OPS (default 10000)
     * @throws Exception if the cluster cannot be set up or a notification is lost
     */
    public static void main(String[] args) throws Exception {
        int ops = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        Path dir = Files.createTempDirectory("softcmi-notify-bench-");
        List<Process> children = new ArrayList<>();
        List<ExecutorService> threads = new ArrayList<>();
        List<CmiContext> contexts = new ArrayList<>();
        try {
            ClusterBench.startTwoDaemons(dir, children, "nbench");
            long[] raw = rawPingPong(ops, children);
            long[] local = roundTrips(ops, dir.resolve("n1"), dir.resolve("n1"), threads, contexts, false);
            long[] remote = roundTrips(ops, dir.resolve("n1"), dir.resolve("n2"), threads, contexts, false);
            long[] localInline = roundTrips(ops, dir.resolve("n1"), dir.resolve("n1"), threads, contexts, true);
            long[] remoteInline = roundTrips(ops, dir.resolve("n1"), dir.resolve("n2"), threads, contexts, true);
            StringBuilder out = new StringBuilder();
            out.append(String.format(Locale.ROOT, "%nnotification round trip (A notifies B, B's handler notifies A back, "
                + "A takes), %d round trips each (after %d warm-up)%n", ops, ops / 2));
            out.append(String.format(Locale.ROOT, "%-44s %10s %10s %12s%n", "path", "p50 us", "p99 us", "p50 / raw"));
            row(out, "raw TCP ping-pong (" + RAW_MESSAGE + " B, polling)", raw, raw);
            row(out, "notify round trip, one daemon (local)", local, raw);
            row(out, "notify round trip, two daemons (remote)", remote, raw);
            row(out, "  the same, B's handler inline (local)", localInline, raw);
            row(out, "  the same, B's handler inline (remote)", remoteInline, raw);
            System.out.println(out);
        } finally {
            for (int i = contexts.size() - 1; i >= 0; i--) {
                CmiContext c = contexts.get(i);
                threads.get(i).submit(c::fini).get(10, TimeUnit.SECONDS);
            }
            threads.forEach(ExecutorService::shutdownNow);
            ClusterBench.stopAndDelete(children, dir);
        }
    }

    /** A context on its own thread. */
    private record Ctx(CmiContext context, ExecutorService thread) {
        <T> T call(Callable<T> work) throws Exception {
            return thread.submit(work).get(60, TimeUnit.SECONDS);
        }
    }

    private static Ctx open(Path node, List<ExecutorService> threads, List<CmiContext> contexts) throws Exception {
        ExecutorService t = Executors.newSingleThreadExecutor();
        threads.add(t);
        CmiContext c = t.submit(() -> {
            synchronized (NotificationBenchmark.class) {
                System.setProperty("softcmi.node", node.toString());
                return Cmi.init(new CmiVersion(1, 1));
            }
        }).get();
        contexts.add(c);
        return new Ctx(c, t);
    }

    /** Creates a segment on {@code owner} and gives {@code user} a writable mapping of it (import if on another node). */
    private static CmiMapping shareWith(Ctx owner, Ctx user) throws Exception {
        CmiSegment s = owner.call(() -> {
            CmiSegment seg = owner.context().segGet(4096, Set.of());
            owner.context().segAt(seg, Set.of());
            return seg;
        });
        boolean sameNode = owner.call(() -> owner.context().nodeAddress()).equals(user.call(() -> user.context().nodeAddress()));
        if (sameNode) {
            long id = s.id();
            return user.call(() -> user.context().segAt(user.context().segFromId(id), Set.of()));
        }
        byte[][] grant = owner.call(() -> new byte[][] {owner.context().segExp(s, Set.of()).toBytes(),
            owner.context().tokNew(s, user.context().nodeAddress(), EnumSet.of(Access.WRITE)).toBytes()});
        return user.call(() -> {
            CmiSegment p = user.context().segImp(RemoteSegmentHandle.fromBytes(grant[0]));
            user.context().segSetToken(p, CmiToken.fromBytes(grant[1]));
            user.context().enable(true);
            return user.context().segAt(p, Set.of());
        });
    }

    private static long[] roundTrips(int ops, Path nodeA, Path nodeB, List<ExecutorService> threads,
            List<CmiContext> contexts, boolean inline) throws Exception {
        Ctx a = open(nodeA, threads, contexts);
        Ctx b = open(nodeB, threads, contexts);
        CmiMapping aToB = shareWith(b, a);
        CmiMapping bToA = shareWith(a, b);
        java.util.function.Consumer<Notification> answer = n -> Notifications.notify(bToA, 0, n.value());
        if (inline) {
            Notifications.inbox(b.context()).onNotificationInline(answer);
        } else {
            Notifications.inbox(b.context()).onNotification(answer);
        }
        NotificationInbox inboxA = Notifications.inbox(a.context());
        return a.call(() -> {
            int total = ops + ops / 2;
            long[] t = new long[ops];
            for (int i = 0; i < total; i++) {
                long s = System.nanoTime();
                Notifications.notify(aToB, 0, i);
                Notification back = inboxA.take(WAIT);
                long e = System.nanoTime() - s;
                if (back == null || back.value() != i) {
                    throw new IllegalStateException("round trip " + i + " lost: " + back);
                }
                if (i >= ops / 2) {
                    t[i - ops / 2] = e;
                }
            }
            Arrays.sort(t);
            return t;
        });
    }

    private static void row(StringBuilder out, String name, long[] t, long[] raw) {
        out.append(String.format(Locale.ROOT, "%-44s %10.1f %10.1f %12.2f%n", name, ChildProcesses.pct(t, 50) / 1e3,
            ChildProcesses.pct(t, 99) / 1e3, (double) ChildProcesses.pct(t, 50) / ChildProcesses.pct(raw, 50)));
    }

    private static long[] rawPingPong(int ops, List<Process> children) throws Exception {
        int port = ChildProcesses.rawTcpPort(children, "echo", Integer.toString(RAW_MESSAGE), Integer.toString(RAW_MESSAGE));
        try (SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", port))) {
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ch.configureBlocking(false);
            ByteBuffer req = ByteBuffer.allocateDirect(RAW_MESSAGE);
            ByteBuffer rep = ByteBuffer.allocateDirect(RAW_MESSAGE);
            long[] t = new long[ops];
            for (int i = 0; i < ops + ops / 2; i++) {
                long s = System.nanoTime();
                RawTcpPeer.pollRound(ch, req, rep);
                if (i >= ops / 2) {
                    t[i - ops / 2] = System.nanoTime() - s;
                }
            }
            Arrays.sort(t);
            return t;
        }
    }

}
