package io.softcmi.smi.internal;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiException;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.ExportAttr;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.RemoteSegmentHandle;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;

/**
 * Makes, exports, attaches and releases the CMI segments SMI is built of, through the public CMI
 * API only. A segment of a process on the same node is attached directly ({@code segFromId},
 * shared memory); one on another node is imported with its handle and token (the node's TCP data
 * path). With {@code -nolocal} every foreign segment is imported, as SMI's {@code -nolocal}
 * forces SCI memory even between processes of one node.
 */
public final class Segments {
    private final CmiContext ctx;
    private final byte[] myNode;
    private final boolean noLocal;

    /** A segment this process made: attached, and unless private, exported with a token for any node. */
    record Own(CmiSegment seg, CmiMapping map, RemoteSegmentHandle handle, CmiToken token, SegmentRef ref) {
    }

    /** A segment of another process, attached here. */
    record Foreign(CmiSegment seg, CmiMapping map, boolean imported) {
    }

    /**
     * @param ctx the process's context
     * @param noLocal import segments of this node too
     */
    public Segments(CmiContext ctx, boolean noLocal) {
        this.ctx = ctx;
        this.myNode = ctx.nodeAddress().toBytes();
        this.noLocal = noLocal;
    }

    CmiContext context() {
        return ctx;
    }

    byte[] myNode() {
        return myNode.clone();
    }

    /** Whether a segment of that node is reached through this node's shared memory. */
    boolean isLocal(byte[] node) {
        return !noLocal && Arrays.equals(node, myNode);
    }

    Own create(long size, boolean export) {
        return create(size, export, Set.of());
    }

    /**
     * An exported segment that holds synchronization words (the bootstrap and control segments:
     * barrier, mutexes, counters, signals, messages), exported {@code CMI_SEG_WRITE_THROUGH} so
     * that every remote access is one round trip to the home and no barrier of the context has
     * to write back or invalidate it (see docs/smi.md "Caching").
     */
    Own createSynchronization(long size) {
        return create(size, true, Set.of(ExportAttr.WRITE_THROUGH));
    }

    private Own create(long size, boolean export, Set<ExportAttr> exportAttrs) {
        long max = ctx.ctlInfo().maxSegSz();
        if (size > max) {
            throw Errors.fail(io.softcmi.smi.SmiError.NOMEM, "a segment of " + size + " bytes is larger than the node's"
                + " maximum of " + max);
        }
        CmiSegment seg = ctx.segGet(size, Set.of());
        CmiMapping map = null;
        try {
            map = ctx.segAt(seg, Set.of());
            if (!export) {
                return new Own(seg, map, null, null, null);
            }
            RemoteSegmentHandle h = ctx.segExp(seg, exportAttrs);
            CmiToken t = ctx.tokNew(seg, NodeAddress.ANY, EnumSet.allOf(Access.class));
            return new Own(seg, map, h, t, new SegmentRef(seg.id(), size, myNode, h.toBytes(), t.toBytes()));
        } catch (CmiException | io.softcmi.smi.SmiException e) {
            quietly(() -> ctx.segRemove(seg));
            throw e;
        }
    }

    void destroy(Own o) {
        quietly(() -> ctx.segDt(o.map()));
        if (o.token() != null) {
            quietly(() -> ctx.tokDel(o.token()));
        }
        if (o.handle() != null) {
            quietly(() -> ctx.rsegDel(o.handle()));
        }
        quietly(() -> ctx.segRemove(o.seg()));
    }

    Foreign attach(SegmentRef r) {
        if (isLocal(r.node())) {
            CmiSegment seg = ctx.segFromId(r.cmiSegId());
            return new Foreign(seg, ctx.segAt(seg, Set.of()), false);
        }
        CmiSegment seg;
        try {
            seg = ctx.segImp(RemoteSegmentHandle.fromBytes(r.handle()));
        } catch (CmiException e) {
            if (e.error() == io.softcmi.cmi.CmiError.NOMEM && importsExhausted()) {
                // SMI_ERR_NOSEGMENT: no shared segment left to set up (the node's import table is full)
                throw new io.softcmi.smi.SmiException(io.softcmi.smi.SmiError.NOSEGMENT,
                    "no import left on this node for a segment of another node: " + e.getMessage(), e);
            }
            throw e;
        }
        try {
            ctx.segSetToken(seg, CmiToken.fromBytes(r.token()));
            return new Foreign(seg, ctx.segAt(seg, Set.of()), true);
        } catch (CmiException e) {
            quietly(() -> ctx.segRemove(seg));
            throw e;
        }
    }

    /** @return whether the node holds its maximum of imports ({@code cur_imp_segs >= max_imp_segs}) */
    private boolean importsExhausted() {
        try {
            io.softcmi.cmi.CmiInfo i = ctx.ctlInfo();
            return i.curImpSegs() >= i.maxImpSegs();
        } catch (CmiException e) {
            return false;
        }
    }

    void detach(Foreign f) {
        quietly(() -> ctx.segDt(f.map()));
        if (f.imported()) {
            quietly(() -> ctx.segRemove(f.seg()));
        }
    }

    /** Releasing continues past a failed step: the daemon reclaims what is left when the process leaves. */
    private static void quietly(Runnable r) {
        try {
            r.run();
        } catch (CmiException | IllegalStateException ignored) {
            // Already gone (the peer left first, or the context is closing): nothing more to release.
        }
    }
}
