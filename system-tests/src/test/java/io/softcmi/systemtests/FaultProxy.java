package io.softcmi.systemtests;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP forwarder on loopback that a test puts in front of a daemon (the daemon advertises the
 * proxy's port with {@code --advertise}, so every peer and remote process reaches it through
 * here) to inject network faults:
 * <ul>
 * <li>{@link #cut()}: a partition. Bytes stop flowing both ways on every connection, and new
 *     connections are accepted but never forwarded: callers hang until their own deadlines, as
 *     behind a dead switch (nobody gets a reset).</li>
 * <li>{@link #heal()}: the network is back. Connections that lived through the cut are closed
 *     (bytes were lost inside them); new ones are forwarded again.</li>
 * <li>{@link #delay(long)}: every chunk forwarded waits that long first.</li>
 * <li>{@link #record()}: keeps a copy of what flows towards the daemon (a wiretap).</li>
 * </ul>
 * Only loopback: it listens on 127.0.0.1 and forwards to 127.0.0.1.
 */
final class FaultProxy implements AutoCloseable {
    private final ServerSocket server;
    private volatile int targetPort;
    private volatile boolean cut;
    private volatile long delayMs;
    /** Bytes still to forward towards the daemon before a cut; negative: no cut pending. */
    private final java.util.concurrent.atomic.AtomicLong budget = new java.util.concurrent.atomic.AtomicLong(-1);
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final Set<Socket> throughCut = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;
    /** A copy of every byte forwarded towards the daemon, while recording (null otherwise). */
    private volatile java.io.ByteArrayOutputStream recording;

    /**
     * Listens on an ephemeral loopback port; forwards nothing until {@link #target} is set.
     *
     * @throws IOException if it cannot listen
     */
    FaultProxy() throws IOException {
        server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        acceptor = Thread.ofVirtual().name("fault-proxy-" + server.getLocalPort()).start(this::accept);
    }

    /** @return the port to advertise */
    int port() {
        return server.getLocalPort();
    }

    /** @param port the daemon's real listen port */
    void target(int port) {
        targetPort = port;
    }

    /** Partitions: nothing flows any more, and callers hang. */
    void cut() {
        throughCut.addAll(sockets);
        cut = true;
    }

    /**
     * Cuts (as {@link #cut()}) once {@code bytes} more bytes have been forwarded towards the
     * daemon: the cut then falls inside whatever was being sent, a request half-delivered.
     *
     * @param bytes bytes to let through first
     */
    void cutAfter(long bytes) {
        budget.set(bytes);
    }

    /** @return whether a cut is in effect */
    boolean isCut() {
        return cut;
    }

    /** Ends a partition: connections that saw it are closed, new ones flow. */
    void heal() {
        cut = false;
        for (Socket s : throughCut) {
            close(s);
        }
        throughCut.clear();
    }

    /** Starts keeping a copy of every byte forwarded towards the daemon (what a wiretap sees). */
    void record() {
        recording = new java.io.ByteArrayOutputStream();
    }

    /** @return the bytes forwarded towards the daemon since {@link #record()} */
    byte[] recorded() {
        java.io.ByteArrayOutputStream r = recording;
        if (r == null) {
            return new byte[0];
        }
        synchronized (r) {
            return r.toByteArray();
        }
    }

    /** @param ms delay before each forwarded chunk (0 for none) */
    void delay(long ms) {
        delayMs = ms;
    }

    private void accept() {
        while (!server.isClosed()) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException closed) {
                return;
            }
            sockets.add(client);
            if (cut || targetPort == 0) {
                throughCut.add(client); // held open, never forwarded
                continue;
            }
            Thread.ofVirtual().start(() -> connect(client));
        }
    }

    private void connect(Socket client) {
        Socket upstream = new Socket();
        try {
            upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 5000);
        } catch (IOException e) {
            close(client);
            close(upstream);
            return;
        }
        sockets.add(upstream);
        if (cut) {
            throughCut.add(client);
            throughCut.add(upstream);
        }
        Thread.ofVirtual().start(() -> pump(client, upstream, true));
        Thread.ofVirtual().start(() -> pump(upstream, client, false));
    }

    private void pump(Socket from, Socket to, boolean towardsDaemon) {
        byte[] buf = new byte[64 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            for (int n; (n = in.read(buf)) >= 0; ) {
                if (cut) {
                    throughCut.add(from);
                    throughCut.add(to);
                    continue; // dropped: a partition loses what is in flight
                }
                if (towardsDaemon && budget.get() >= 0) {
                    long left = budget.getAndAdd(-n);
                    if (left < n) {
                        n = (int) Math.max(0, left); // forward up to the cut, drop the rest
                        budget.set(-1);
                        throughCut.addAll(sockets);
                        cut = true;
                        throughCut.add(from);
                        throughCut.add(to);
                        if (n == 0) {
                            continue;
                        }
                        out.write(buf, 0, n);
                        out.flush();
                        continue;
                    }
                }
                long d = delayMs;
                if (d > 0) {
                    Thread.sleep(d);
                }
                java.io.ByteArrayOutputStream r = recording;
                if (towardsDaemon && r != null) {
                    synchronized (r) {
                        r.write(buf, 0, n);
                    }
                }
                out.write(buf, 0, n);
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // One side went away: so does the other.
        } finally {
            close(from);
            close(to);
        }
    }

    private void close(Socket s) {
        sockets.remove(s);
        try {
            s.close();
        } catch (IOException ignored) {
            // Closed already.
        }
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // Closed already.
        }
        for (Socket s : sockets) {
            close(s);
        }
        acceptor.interrupt();
    }
}
