package io.softcmi.benchmarks.cluster;

import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.CmiVersion;
import io.softcmi.cmi.RemoteSegmentHandle;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

/**
 * One client process of {@link FanInBenchmark}: N threads, each with its own CMI context (or
 * its own raw TCP connection), each doing 8-byte remote reads back to back from the start time
 * for the duration, sampling latencies. Writes "ops" and the sampled latencies (ns) to a file.
 *
 * <pre>
 * FanInWorker cmi NODE_DIR HANDLE_FILE THREADS GO_FILE DURATION_MS OUT      (a context per thread)
 * FanInWorker cmishared NODE_DIR HANDLE_FILE THREADS GO_FILE DURATION_MS OUT (one context, THREADS threads)
 * FanInWorker raw PORT THREADS GO_FILE DURATION_MS OUT      (blocking ping-pong, 72-byte request, 32-byte reply)
 * FanInWorker rawpoll PORT THREADS GO_FILE DURATION_MS OUT  (the same, polling non-blocking sockets)
 * </pre>
 * Prints READY when every thread is connected, warms up, then measures from when GO_FILE exists.
 * <pre>
 * </pre>
 */
public final class FanInWorker {
    private static final int SAMPLES_PER_THREAD = 50_000;

    private FanInWorker() {
    }

    /**
     * Entry point.
     *
     * @param args see the class comment
     * @throws Exception on set-up failure
     */
    public static void main(String[] args) throws Exception {
        boolean cmi = args[0].startsWith("cmi");
        boolean shared = args[0].equals("cmishared");
        int i = 1;
        String target = args[i++];
        Path handleFile = cmi ? Path.of(args[i++]) : null;
        int threads = Integer.parseInt(args[i++]);
        Path go = Path.of(args[i++]);
        long duration = Long.parseLong(args[i++]);
        Path out = Path.of(args[i]);
        long[][] samples = new long[threads][];
        long[] ops = new long[threads];
        List<Thread> all = new ArrayList<>();
        CountDownLatch ready = new CountDownLatch(threads);
        SharedContext sharedContext = shared ? new SharedContext(target, handleFile) : null;
        for (int t = 0; t < threads; t++) {
            int id = t;
            all.add(Thread.ofPlatform().start(() -> {
                try {
                    Reader r = shared ? sharedContext.reader() : cmi ? cmiReader(target, handleFile)
                        : rawReader(Integer.parseInt(target), args[0].equals("rawpoll"));
                    ready.countDown();
                    long[] s = new long[SAMPLES_PER_THREAD];
                    int n = 0;
                    long count = 0;
                    // Warm up (JIT, connections, the home's loops) until the start signal.
                    for (long w = 0; !Files.exists(go); w++) {
                        r.read(w);
                        if ((w & 255) == 255) {
                            Thread.sleep(1);
                        }
                    }
                    long end = System.nanoTime() + duration * 1_000_000;
                    long now = System.nanoTime();
                    while (now < end) {
                        long t0 = now;
                        r.read(count);
                        now = System.nanoTime();
                        if (n < s.length) {
                            s[n++] = now - t0;
                        } else if ((count & 15) == 0) {
                            s[(int) ((count >>> 4) % s.length)] = now - t0;
                        }
                        count++;
                    }
                    ops[id] = count;
                    samples[id] = java.util.Arrays.copyOf(s, n);
                    r.close();
                } catch (Exception e) {
                    System.err.println("worker thread failed: " + e);
                    ready.countDown();
                    samples[id] = new long[0];
                }
            }));
        }
        ready.await();
        System.out.println("READY");
        System.out.flush();
        // This process's CPU time over the measured window (CPU per operation: the figure load
        // disturbs least). The threads start within a millisecond of the same signal.
        for (long w = 0; !Files.exists(go) && w < 600_000; w++) {
            Thread.sleep(1);
        }
        long cpu0 = processCpuNanos();
        Thread.sleep(duration);
        long cpuNanos = processCpuNanos() - cpu0;
        for (Thread t : all) {
            t.join();
        }
        try (DataOutputStream d = new DataOutputStream(Files.newOutputStream(out))) {
            long total = 0;
            for (long o : ops) {
                total += o;
            }
            d.writeLong(total);
            int n = 0;
            for (long[] s : samples) {
                n += s.length;
            }
            d.writeInt(n);
            for (long[] s : samples) {
                for (long v : s) {
                    d.writeLong(v);
                }
            }
            d.writeLong(cpuNanos);
        }
        System.exit(0); // contexts end with the process, as a killed client's would
    }

    /** @return this process's CPU time (user and system) so far, in nanoseconds, or -1 */
    static long processCpuNanos() {
        return ProcessHandle.current().info().totalCpuDuration().map(java.time.Duration::toNanos).orElse(-1L);
    }

    private interface Reader {
        void read(long i) throws Exception;

        void close() throws Exception;
    }

    private static Reader cmiReader(String nodeDir, Path handleFile) throws IOException {
        CmiContext c;
        synchronized (FanInWorker.class) {
            System.setProperty("softcmi.node", nodeDir);
            c = Cmi.init(new CmiVersion(1, 1));
        }
        List<String> lines = Files.readAllLines(handleFile);
        CmiSegment p = c.segImp(RemoteSegmentHandle.fromBytes(java.util.HexFormat.of().parseHex(lines.get(0))));
        c.segSetToken(p, CmiToken.fromBytes(java.util.HexFormat.of().parseHex(lines.get(1))));
        c.enable(true);
        CmiMapping m = c.segAt(p, Set.of());
        return new Reader() {
            @Override
            public void read(long i) {
                m.getLong((i & 63) * 8);
            }

            @Override
            public void close() {
                c.fini();
            }
        };
    }

    /** One context whose threads all read through one mapping (pipelined on one connection per home). */
    private static final class SharedContext {
        private final CmiContext context;
        private final CmiMapping mapping;

        SharedContext(String nodeDir, Path handleFile) throws IOException {
            System.setProperty("softcmi.node", nodeDir);
            context = Cmi.init(new CmiVersion(1, 1));
            List<String> lines = Files.readAllLines(handleFile);
            CmiSegment p = context.segImp(RemoteSegmentHandle.fromBytes(java.util.HexFormat.of().parseHex(lines.get(0))));
            context.segSetToken(p, CmiToken.fromBytes(java.util.HexFormat.of().parseHex(lines.get(1))));
            mapping = context.segAt(p, Set.of());
        }

        Reader reader() {
            synchronized (this) {
                if (Thread.currentThread() != null) {
                    try {
                        context.iniTh();
                    } catch (io.softcmi.cmi.CmiException alreadyBound) {
                        // the thread that made the context is associated already
                    }
                }
            }
            context.enable(true);
            return new Reader() {
                @Override
                public void read(long i) {
                    mapping.getLong((i & 63) * 8);
                }

                @Override
                public void close() {
                    context.fini();
                }
            };
        }
    }

    private static Reader rawReader(int port, boolean polling) throws IOException {
        SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", port));
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        ch.configureBlocking(!polling);
        ByteBuffer req = ByteBuffer.allocateDirect(72);
        ByteBuffer rep = ByteBuffer.allocateDirect(32);
        return new Reader() {
            @Override
            public void read(long i) throws IOException {
                RawTcpPeer.exchange(ch, req, rep);
            }

            @Override
            public void close() throws IOException {
                ch.close();
            }
        };
    }
}
