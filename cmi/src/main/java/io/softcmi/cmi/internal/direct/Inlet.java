package io.softcmi.cmi.internal.direct;

import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.notify.DirectInlet;
import java.lang.foreign.MemorySegment;
import java.util.function.BooleanSupplier;

/** One served segment of an {@link InletServer}: the public {@link DirectInlet}. */
final class Inlet implements DirectInlet {
    final InletServer server;
    final int id;
    final byte[] key;
    /** The attach's memory, written by the server's thread. */
    final MemorySegment data;
    /** The segment, as the serving context names it (for its notifications). */
    final CmiSegment segment;
    private final BooleanSupplier attached;
    private volatile boolean open = true;
    /** The server's outer passes begun when {@link #close()} ran (-1: open): the ones {@link #awaitClosed} waits for. */
    private volatile long closedAtPass = -1;
    private volatile long stores; // written by the server's thread only

    Inlet(InletServer server, int id, byte[] key, MemorySegment data, CmiSegment segment, BooleanSupplier attached) {
        this.server = server;
        this.id = id;
        this.key = key;
        this.data = data;
        this.segment = segment;
        this.attached = attached;
    }

    /** @return whether stores may still land: open and the attach not detached */
    boolean serving() {
        return open && attached.getAsBoolean();
    }

    /** @return whether {@link #close()} has not run (a store's next copy checks it) */
    boolean open() {
        return open;
    }

    void stored() {
        stores = stores + 1;
    }

    @Override
    public byte[] address() {
        return new InletAddress(server.host(), server.port(), id, data.byteSize(), key.clone(), server.serverKey()).toBytes();
    }

    @Override
    public long stores() {
        return stores;
    }

    @Override
    public void close() {
        if (open) {
            open = false; // before the pass count is read: a pass that begins later sees it (InletServer#passBegin)
            closedAtPass = server.passesBegun();
        }
        server.remove(this);
    }

    @Override
    public boolean awaitClosed(long timeoutNanos) {
        long pass = closedAtPass;
        if (pass < 0 || server.onServerThread()) {
            return false;
        }
        return server.awaitPassesEnded(pass, System.nanoTime() + timeoutNanos);
    }

    @Override
    public String toString() {
        return "Inlet[" + id + " of segment " + segment.id() + " at " + server.host() + ":" + server.port()
            + (open ? "" : ", closed") + "]";
    }
}
