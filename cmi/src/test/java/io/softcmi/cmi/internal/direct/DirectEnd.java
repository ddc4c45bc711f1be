package io.softcmi.cmi.internal.direct;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.internal.HandleCodec;
import io.softcmi.cmi.notify.DirectInlet;
import io.softcmi.cmi.notify.Notification;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** One context's direct delivery over a fake host, with an inlet on 4 KiB of its own memory (this package's tests). */
final class DirectEnd implements InletHost, AutoCloseable {
    final BlockingQueue<Notification> got = new LinkedBlockingQueue<>();
    /** Runs on the inlet thread for each notification before it is queued (a handler). */
    volatile java.util.function.Consumer<Notification> handler = n -> { };
    final Arena arena = Arena.ofShared();
    final MemorySegment data = arena.allocate(4096, 8);
    final DirectEndpoints endpoints = new DirectEndpoints(this);
    final DirectInlet inlet;
    final String name;
    final long timeoutNanos;

    /** The bound on accepted connections this host gives its inlet server ({@link InletHost#maxAcceptedConnections}). */
    volatile int maxAccepted = 1024;
    /** The HELLO deadline this host gives its inlet server ({@link InletHost#helloTimeoutNanos}). */
    volatile long helloTimeoutNanos = TimeUnit.SECONDS.toNanos(5);

    DirectEnd(String name) {
        this(name, TimeUnit.SECONDS.toNanos(10));
    }

    DirectEnd(String name, long timeoutNanos) {
        this.name = name;
        this.timeoutNanos = timeoutNanos;
        CmiSegment segment = new CmiSegment() {
            @Override
            public long id() {
                return 1;
            }

            @Override
            public long size() {
                return 4096;
            }

            @Override
            public boolean imported() {
                return false;
            }

            @Override
            public NodeAddress home() {
                return HandleCodec.ANY_NODE;
            }
        };
        inlet = endpoints.openInlet(data, segment, () -> true);
    }

    String endpoint() {
        return InletAddress.fromBytes(inlet.address()).endpoint();
    }

    Route routeTo(DirectEnd other) {
        return (Route) endpoints.routeTo(other.inlet.address());
    }

    Notification next() throws InterruptedException {
        Notification n = got.poll(10, TimeUnit.SECONDS);
        assertNotNull(n, name + " got no notification in 10 s");
        return n;
    }

    @Override
    public void deliver(Notification n) {
        handler.accept(n);
        got.add(n);
    }

    @Override
    public void bindHandlerThread() {
    }

    @Override
    public String listenHost() {
        return "127.0.0.1";
    }

    @Override
    public byte[] nodeAddress() {
        return HandleCodec.ANY_NODE.toBytes();
    }

    @Override
    public long remoteTimeoutNanos() {
        return timeoutNanos;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean plainTcp() {
        return true;
    }

    @Override
    public void warn(String message) {
    }

    @Override
    public int maxAcceptedConnections() {
        return maxAccepted;
    }

    @Override
    public long helloTimeoutNanos() {
        return helloTimeoutNanos;
    }

    /** Closes its direct delivery and frees its memory. */
    @Override
    public void close() {
        endpoints.close();
        arena.close();
    }
}
