package io.softcmi.cmi.internal;

import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.SegFlag;
import io.softcmi.wire.SegmentDescriptor;
import java.util.Set;

/**
 * A segment handle ({@code cmi_seg}) as the library knows it: id, size and flags from the node.
 * Its id has node scope: any process of the node may use it through {@code segFromId}.
 */
final class SegmentImpl implements CmiSegment {
    private final long id;
    private final long size;
    private final Set<SegFlag> flags;
    private final boolean imported;
    private final NodeAddress home;
    private final NodeAddress issuer;

    SegmentImpl(SegmentDescriptor d, NodeAddress home, NodeAddress issuer) {
        this.issuer = issuer;
        this.id = d.id();
        this.size = d.size();
        this.flags = Set.copyOf(FlagBits.fromBits(d.flags(), SegFlag.class));
        this.imported = d.imported();
        this.home = home;
    }

    @Override
    public long id() {
        return id;
    }

    @Override
    public long size() {
        return size;
    }

    @Override
    public boolean imported() {
        return imported;
    }

    @Override
    public NodeAddress home() {
        return home;
    }

    /** @return the node whose id space {@link #id()} belongs to (this process's node) */
    NodeAddress issuer() {
        return issuer;
    }

    Set<SegFlag> flags() {
        return flags;
    }

    boolean extensible() {
        return flags.contains(SegFlag.EXTENSIBLE);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SegmentImpl s && s.id == id && s.issuer.equals(issuer);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(id);
    }

    @Override
    public String toString() {
        return "segment " + id + " (" + size + " bytes" + (imported ? ", imported" : "") + ")";
    }
}
