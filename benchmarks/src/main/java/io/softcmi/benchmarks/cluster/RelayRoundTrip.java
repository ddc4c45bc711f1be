package io.softcmi.benchmarks.cluster;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The machine's own limit for the shape of a VMMC round trip in which every message goes through
 * the receiver's node daemon (issue 10; docs/vmmc.md): a plain-Java TCP relay ring
 * A &rarr; R_B &rarr; B &rarr; R_A &rarr; A, four hops and four processes per round trip. A is this
 * JVM; R_B (B's "daemon"), B and R_A (A's "daemon") are {@link RawRelay} processes that each read
 * a whole message and forward it. B forwards what it receives, so its reply has the request's
 * size, and A checks that every reply carries the bytes it sent. With 2 hops the ring is
 * A &rarr; B &rarr; A, the plain ping-pong, measured by the same code.
 */
public final class RelayRoundTrip {
    /**
     * System property: the longest the timed round trips of one ring may take, in seconds
     * (default 10); a ring that is slower stops early and returns the round trips it timed.
     */
    public static final String SECONDS_PROPERTY = "bench.relaySeconds";

    private RelayRoundTrip() {
    }

    /**
     * Times round trips of {@code bytes}-byte messages around the ring of {@code hops} hops
     * ({@code hops - 1} relay processes besides this one), after {@code ops / 10}
     * (at least one) untimed ones; every process of the ring polls ({@code poll}) or blocks in
     * {@code read}. The three relay processes are started here and stopped before it returns.
     *
     * @param ops timed round trips
     * @param bytes message size (at least 4: each message carries its sequence number)
     * @param hops hops per round trip (at least 2; 4 for A, R_B, B, R_A)
     * @param poll whether every hop, and A, reads by polling a non-blocking socket
     * @return the sorted round-trip times in ns: {@code ops} of them, or fewer (at least one) if
     *     they took longer than {@link #SECONDS_PROPERTY}
     * @throws IOException if the ring cannot be built, a relay fails, or a reply differs from its request
     * @throws InterruptedException if interrupted while stopping the relays
     */
    public static long[] roundTrips(int ops, int bytes, int hops, boolean poll) throws IOException, InterruptedException {
        if (ops < 1 || bytes < 4 || hops < 2) {
            throw new IllegalArgumentException("need ops >= 1, bytes >= 4 and hops >= 2");
        }
        List<Process> relays = new ArrayList<>();
        try (ServerSocketChannel home = ServerSocketChannel.open()) {
            home.bind(new InetSocketAddress("127.0.0.1", 0));
            int[] ports = new int[hops - 1]; // in ring order: R_B, B, R_A for 4 hops
            for (int i = 0; i < ports.length; i++) {
                String[] line = new String[1];
                relays.add(ChildProcesses.start(l -> {
                    line[0] = l;
                    return l.startsWith("PORT ");
                }, List.of(), RawRelay.class.getName(), Integer.toString(bytes), poll ? "poll" : "block"));
                ports[i] = Integer.parseInt(line[0].substring(5).trim());
            }
            int aPort = ((InetSocketAddress) home.getLocalAddress()).getPort();
            for (int i = 0; i < ports.length; i++) {
                int next = i + 1 < ports.length ? ports[i + 1] : aPort;
                OutputStream in = relays.get(i).getOutputStream();
                in.write((next + "\n").getBytes(StandardCharsets.US_ASCII));
                in.flush();
            }
            try (SocketChannel out = SocketChannel.open(new InetSocketAddress("127.0.0.1", ports[0]));
                    SocketChannel in = home.accept()) {
                out.setOption(StandardSocketOptions.TCP_NODELAY, true);
                in.setOption(StandardSocketOptions.TCP_NODELAY, true);
                in.configureBlocking(!poll);
                return time(out, in, ops, bytes);
            }
        } finally {
            ChildProcesses.stop(relays);
        }
    }

    private static long[] time(SocketChannel out, SocketChannel in, int ops, int bytes) throws IOException {
        ByteBuffer request = ByteBuffer.allocateDirect(bytes);
        ByteBuffer reply = ByteBuffer.allocateDirect(bytes);
        long[] t = new long[ops];
        int warm = Math.max(1, ops / 10);
        long budget = (long) (Double.parseDouble(System.getProperty(SECONDS_PROPERTY, "10")) * 1e9);
        long deadline = 0;
        int done = 0;
        for (int i = -warm; i < ops; i++) {
            if (i == 0) {
                deadline = System.nanoTime() + budget;
            } else if (i > 0 && System.nanoTime() - deadline > 0) {
                break;
            }
            request.clear();
            request.putInt(0, i);
            request.put(bytes - 1, (byte) i);
            long s = System.nanoTime();
            while (request.hasRemaining()) {
                out.write(request);
            }
            reply.clear();
            while (reply.hasRemaining()) {
                if (in.read(reply) < 0) {
                    throw new IOException("the ring closed after " + (i + warm) + " round trips");
                }
                if (!in.isBlocking()) {
                    Thread.onSpinWait();
                }
            }
            if (i >= 0) {
                t[i] = System.nanoTime() - s;
                done = i + 1;
            }
            if (!request.flip().equals(reply.flip())) {
                throw new IOException("round trip " + i + " came back with other bytes");
            }
        }
        t = Arrays.copyOf(t, done);
        Arrays.sort(t);
        return t;
    }
}
