package io.softcmi.cmi.internal;

import io.softcmi.cmi.notify.DirectInlet;
import java.lang.foreign.MemorySegment;

/** One served segment of an {@link InletServer}: the public {@link DirectInlet}. */
final class Inlet implements DirectInlet {
    final InletServer server;
    final int id;
    final byte[] key;
    final LocalMapping mapping;
    /** The attach's memory, written by the server's thread. */
    final MemorySegment data;
    private volatile boolean open = true;
    private volatile long stores; // written by the server's thread only

    Inlet(InletServer server, int id, byte[] key, LocalMapping mapping) {
        this.server = server;
        this.id = id;
        this.key = key;
        this.mapping = mapping;
        this.data = mapping.data;
    }

    /** @return whether stores may still land: open and the attach not detached */
    boolean serving() {
        return open && mapping.attached();
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
        return "Inlet[" + id + " of segment " + mapping.segmentId + " at " + server.host() + ":" + server.port()
            + (open ? "" : ", closed") + "]";
    }
}
