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

    void stored() {
        stores = stores + 1;
    }

    @Override
    public byte[] address() {
        return new InletAddress(server.host(), server.port(), id, data.byteSize(), key.clone()).toBytes();
    }

    @Override
    public long stores() {
        return stores;
    }

    @Override
    public void close() {
        open = false;
        server.remove(this);
    }

    @Override
    public String toString() {
        return "Inlet[" + id + " of segment " + segment.id() + " at " + server.host() + ":" + server.port()
            + (open ? "" : ", closed") + "]";
    }
}
