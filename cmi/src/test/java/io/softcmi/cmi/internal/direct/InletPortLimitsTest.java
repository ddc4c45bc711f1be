package io.softcmi.cmi.internal.direct;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The inlet port's bounds (docs/notifications.md, "Direct delivery"): a connection that does not
 * say HELLO in time is dropped, and at most {@link InletHost#maxAcceptedConnections} connections
 * other processes opened stay open, the oldest without a HELLO giving way to a new one.
 */
class InletPortLimitsTest {
    private final List<DirectEnd> ends = new ArrayList<>();
    private final List<Socket> sockets = new ArrayList<>();

    @AfterEach
    void close() throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
        ends.forEach(DirectEnd::close);
    }

    private DirectEnd end(String name) {
        DirectEnd e = new DirectEnd(name);
        ends.add(e);
        return e;
    }

    /** A raw connection to {@code e}'s inlet port that says nothing. */
    private Socket silent(DirectEnd e) throws IOException {
        InletAddress a = InletAddress.fromBytes(e.inlet.address());
        Socket s = new Socket();
        sockets.add(s);
        s.connect(new InetSocketAddress(a.host(), a.port()), 5_000);
        return s;
    }

    /**
     * Reads (the inlet's own HELLO, then nothing) until the inlet closes the connection or
     * {@code millis} pass.
     *
     * @return whether it was closed
     */
    private static boolean closedWithin(Socket s, long millis) throws IOException {
        s.setSoTimeout(50);
        InputStream in = s.getInputStream();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        byte[] buf = new byte[4096];
        while (System.nanoTime() < deadline) {
            try {
                if (in.read(buf) < 0) {
                    return true;
                }
            } catch (SocketTimeoutException e) {
                // still open: look again
            } catch (IOException e) {
                return true; // reset
            }
        }
        return false;
    }

    private static boolean closedByInlet(Socket s) throws IOException {
        return closedWithin(s, 10_000);
    }

    private static boolean stillOpen(Socket s, long millis) throws IOException {
        return !closedWithin(s, millis);
    }

    private static long awaitCount(java.util.function.LongSupplier count, long atLeast) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (count.getAsLong() < atLeast && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        return count.getAsLong();
    }

    private static InletServer server(DirectEnd e) {
        return e.endpoints.runningServer();
    }

    @Test
    void shouldDropAConnectionThatSaysNoHelloInTimeAndKeepARouteThatDid() throws Exception {
        DirectEnd creator = end("creator");
        DirectEnd sender = end("sender");
        creator.helloTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(300);
        Socket s = silent(creator);
        Route r = sender.routeTo(creator);
        r.putAndNotify(0, MemorySegment.ofArray(new long[] {7}), 0, 7).await();
        assertTrue(closedByInlet(s), "a connection without a HELLO stays open");
        assertEquals(1, awaitCount(server(creator).admission()::droppedWithoutHello, 1));
        Thread.sleep(400); // past the deadline for the route's connection too: it said HELLO
        r.putAndNotify(8, MemorySegment.ofArray(new long[] {8}), 8, 8).await();
        assertEquals(8, creator.data.get(ValueLayout.JAVA_LONG, 8));
        assertEquals(1, server(creator).admission().droppedWithoutHello());
    }

    /** Says HELLO on {@code s} as a route's process does, with {@code proof} as the server's key (null: none). */
    private static void hello(Socket s, byte[] proof) throws IOException {
        byte[] address = io.softcmi.cmi.internal.HandleCodec.ANY_NODE.toBytes();
        byte[] endpoint = "127.0.0.1:1".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        int length = 4 + address.length + 4 + endpoint.length + (proof == null ? 0 : proof.length);
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(InletFrames.HEADER + length).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        b.putInt(InletFrames.HELLO).putInt(0).putLong(0).putLong(length).putLong(0).putLong(0).putLong(0).putLong(0).putLong(0);
        b.putInt(address.length).put(address).putInt(endpoint.length).put(endpoint);
        if (proof != null) {
            b.put(proof);
        }
        s.getOutputStream().write(b.array());
        s.getOutputStream().flush();
    }

    @Test
    void shouldDropAConnectionWhoseHelloDoesNotProveTheServersKeyAndKeepOneThatDoes() throws Exception {
        DirectEnd creator = end("creator");
        InletAddress a = InletAddress.fromBytes(creator.inlet.address());
        Socket none = silent(creator);
        hello(none, null);
        Socket wrong = silent(creator);
        hello(wrong, new byte[InletAddress.KEY_LENGTH]);
        Socket proved = silent(creator);
        hello(proved, a.serverKey());
        assertTrue(closedByInlet(none), "a HELLO without the server's key was kept");
        assertTrue(closedByInlet(wrong), "a HELLO with another key was kept");
        assertTrue(stillOpen(proved, 300), "a HELLO with the server's key was dropped");
        creator.maxAccepted = 1; // the proved connection holds the bound: a new one is refused
        Socket late = silent(creator);
        assertTrue(closedByInlet(late));
        assertEquals(1, awaitCount(server(creator).admission()::refused, 1));
    }

    @Test
    void shouldGiveTheOldestConnectionWithoutHelloWayToANewOneAtTheBound() throws Exception {
        DirectEnd creator = end("creator");
        creator.maxAccepted = 3;
        Socket first = silent(creator);
        Socket second = silent(creator);
        Socket third = silent(creator);
        assertTrue(stillOpen(first, 300), "below the bound");
        DirectEnd sender = end("sender");
        Route r = sender.routeTo(creator); // the fourth: the oldest silent one gives way
        r.putAndNotify(0, MemorySegment.ofArray(new long[] {5}), 0, 5).await();
        assertEquals(5, creator.data.get(ValueLayout.JAVA_LONG, 0));
        assertTrue(closedByInlet(first), "the oldest connection without a HELLO was kept");
        assertTrue(stillOpen(second, 200) && stillOpen(third, 200), "a newer one was dropped instead");
        assertEquals(1, server(creator).admission().droppedWithoutHello());
        assertEquals(0, server(creator).admission().refused());
    }

    @Test
    void shouldRefuseANewConnectionWhenEveryOneAtTheBoundSaidHello() throws Exception {
        DirectEnd creator = end("creator");
        creator.maxAccepted = 2;
        DirectEnd a = end("a");
        DirectEnd b = end("b");
        a.routeTo(creator).putAndNotify(0, MemorySegment.ofArray(new long[] {1}), 0, 1).await();
        b.routeTo(creator).putAndNotify(8, MemorySegment.ofArray(new long[] {2}), 8, 2).await();
        Socket late = silent(creator);
        assertTrue(closedByInlet(late), "a third connection was kept at a bound of two");
        assertEquals(1, awaitCount(server(creator).admission()::refused, 1));
        a.routeTo(creator).putAndNotify(16, MemorySegment.ofArray(new long[] {3}), 16, 3).await();
        assertEquals(3, creator.data.get(ValueLayout.JAVA_LONG, 16), "a route that said HELLO keeps its connection");
    }
}
