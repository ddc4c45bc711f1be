package io.softcmi.node;

import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.ExportAttr;
import io.softcmi.cmi.SegFlag;
import io.softcmi.cmi.internal.HandleCodec;
import io.softcmi.cmi.internal.RemoteSegmentHandleImpl;
import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.ControlMessage.Ok;
import java.lang.System.Logger.Level;
import java.util.Arrays;

/**
 * Segment calls at the home node: {@code seg_get}, {@code seg_at}/{@code seg_dt},
 * {@code CMI_SEG_RM}, {@code CMI_SEG_BRK}, {@code seg_exp}/{@code rseg_del}, recovery and cache
 * sizes, and the lifetime rules that tie them together. Called under the engine's lock.
 */
final class SegmentService {
    static final long PAGE = 4096;
    static final long CACHE_LINE = 4096;
    /** {@code max_reco_segsz}: the longest range one {@code CMI_SEG_CHECK} or {@code CMI_SEG_RECO} takes. */
    static final long MAX_RECO_SEGSZ = 64L << 20;
    private static final System.Logger LOG = System.getLogger("io.softcmi.node");
    private final NodeState state;

    SegmentService(NodeState state) {
        this.state = state;
    }

    ControlMessage segGet(Session s, ControlMessage.SegGet r) {
        long size = r.size();
        if (size <= 0 || size % PAGE != 0) {
            throw NodeException.inval("segment size must be a positive multiple of prot_units (" + PAGE + "): " + size);
        }
        if (size > state.memory.configured()) {
            throw NodeException.inval("segment size " + size + " exceeds max_seg_sz " + state.memory.configured());
        }
        int flags = r.flags();
        if (has(flags, SegFlag.CLIENT_CONSIST) && has(flags, SegFlag.CLIENT_INCONSIST)) {
            throw NodeException.inval("CMI_SEG_CLIENT_CONSIST and CMI_SEG_CLIENT_INCONSIST exclude each other");
        }
        if ((flags & ~((1 << SegFlag.values().length) - 1)) != 0) {
            throw new NodeException(CmiError.NOTSUPP, "unknown segment flags 0x" + Integer.toHexString(flags));
        }
        if (has(flags, SegFlag.LARGE_PAGES)) {
            throw NodeException.nomem("CMI_SEG_LARGE_PAGES: no large pages are configured for CMI on this node");
        }
        if (state.segments.size() >= state.config.maxSegments()) {
            throw NodeException.nomem("the node holds its maximum of " + state.config.maxSegments() + " segments");
        }
        boolean extensible = has(flags, SegFlag.EXTENSIBLE);
        long brk = extensible ? 0 : size;
        MemoryReservation rsv = s.reservation != null && !s.reservation.deleted ? s.reservation : null;
        state.memory.charge(rsv, brk);
        long id = state.newSegmentId();
        SegmentFile file;
        try {
            java.nio.file.Path segPath = state.config.shmDirectory().resolve("seg-" + id);
            file = SegmentFile.create(segPath, id, size, flags, brk, !has(flags, SegFlag.NORESERVE));
            if (state.config.groupPrincipal() != null) {
                try {
                    NodeGroup.apply(segPath, state.config.groupPrincipal(), false);
                } catch (java.io.IOException e) {
                    file.delete();
                    throw NodeException.nomem("cannot give segment file " + segPath + " to group "
                        + state.config.group() + ": " + e.getMessage());
                }
            }
        } catch (NodeException e) {
            state.memory.release(rsv, brk);
            throw e;
        }
        if (has(flags, SegFlag.LOCK)) {
            int rc = file.lock(size);
            if (rc != 0) {
                LOG.log(Level.WARNING, "CMI_SEG_LOCK: mlock of segment {0} failed (errno {1}); its memory is allocated "
                    + "but may be swapped", id, rc);
            }
        }
        Segment seg = new Segment(id, size, flags, s.id, s.pid, file, rsv, brk, brk);
        state.segments.put(id, seg);
        s.created.add(id);
        state.notifications.register(id, s);
        return new ControlMessage.SegmentReply(seg.describe());
    }

    ControlMessage lookup(ControlMessage.SegLookup r) {
        return new ControlMessage.SegmentReply(state.segment(r.segId()).describe());
    }

    ControlMessage attach(Session s, ControlMessage.SegAttach r) {
        Segment seg = state.segment(r.segId());
        if (seg.marked()) {
            throw NodeException.inval("segment " + seg.id + " is marked for deletion; it cannot be attached");
        }
        if (seg.state == Segment.QUIESCED) {
            throw new NodeException(CmiError.RECONFIG, "segment " + seg.id + " is being reconfigured");
        }
        long attachId = state.newAttachId();
        seg.attachCount++;
        s.attachments.put(attachId, seg.id);
        state.coherence.localAttached(seg.id, attachId, !r.readOnly());
        return new ControlMessage.Attached(attachId, seg.describe());
    }

    ControlMessage detach(Session s, ControlMessage.SegDetach r) {
        Long segId = s.attachments.remove(r.attachId());
        if (segId == null) {
            throw NodeException.inval("no attach " + r.attachId() + " in this context");
        }
        state.coherence.localDetached(r.attachId());
        release(state.segments.get(segId));
        return new Ok();
    }

    /** Drops one attach of a segment and reclaims it if that was the last of a marked one. */
    void release(Segment seg) {
        if (seg != null) {
            seg.attachCount--;
            reclaimIfUnused(seg);
        }
    }

    ControlMessage remove(Session s, ControlMessage.SegRemove r) {
        Segment seg = state.createdBy(r.segId(), s, "remove it");
        mark(seg);
        return new Ok();
    }

    /** Marks a segment for deletion; reclaims it at once when nobody has it attached. */
    void mark(Segment seg) {
        if (!seg.marked()) {
            seg.state = Segment.MARKED;
            // Remote access ends with the mark: exports and their tokens go (cmi(7) Segment Lifetime).
            RemoteTarget t = state.targets.get(seg.id);
            if (t != null) {
                t.marked = true;
            }
            state.tokens.values().removeIf(tok -> tok.segmentId() == seg.id);
            state.exports.values().removeIf(e -> e.segmentId() == seg.id);
            state.sessions.values().forEach(ses -> ses.exports.values().removeIf(id -> id == seg.id));
        }
        reclaimIfUnused(seg);
    }

    private void reclaimIfUnused(Segment seg) {
        if (seg.marked() && seg.attachCount <= 0 && state.segments.remove(seg.id) != null) {
            // Unpublish before unmapping: a remote access that still finds it fails on the closed mapping.
            state.targets.remove(seg.id);
            state.coherence.segmentGone(seg.id);
            state.notifications.unregister(seg.id);
            state.homeImports.removeIf(i -> i.segmentId() == seg.id);
            seg.file.delete();
            state.memory.release(seg.reservation, seg.charged);
            Session creator = state.sessions.get(seg.creatorSession);
            if (creator != null) {
                creator.created.remove(seg.id);
            }
        }
    }

    ControlMessage setBreak(Session s, ControlMessage.SegBreak r) {
        Segment seg = state.segment(r.segId());
        if (!seg.has(SegFlag.EXTENSIBLE)) {
            throw NodeException.inval("segment " + seg.id + " is not extensible");
        }
        state.createdBy(seg.id, s, "move its break");
        long brk = r.brk();
        if (brk < 0 || brk > seg.size || brk % PAGE != 0) {
            throw NodeException.inval("break must be a multiple of " + PAGE + " within [0, " + seg.size + "]: " + brk);
        }
        if (brk > seg.brk) {
            long grow = brk - seg.brk;
            if (seg.shrunk) {
                // A store that checked the old break just before a shrink may still have landed in
                // the freed range: free it again, so regrown memory reads zero whatever raced (that
                // store is then ordered before the shrink, which discarded it).
                seg.file.release(seg.brk, brk);
            }
            state.memory.charge(seg.reservation, grow);
            int rc = seg.has(SegFlag.NORESERVE) ? 0 : seg.file.allocate(seg.brk, brk);
            if (rc != 0) {
                state.memory.release(seg.reservation, grow);
                throw NodeException.nomem("cannot allocate " + grow + " bytes for segment " + seg.id + " (errno " + rc + ")");
            }
            seg.charged += grow;
            seg.brk = brk;
            seg.file.publishBreak(brk);
        } else if (brk < seg.brk) {
            long old = seg.brk;
            seg.brk = brk;
            seg.shrunk = true;
            seg.file.publishBreak(brk);
            seg.file.release(brk, old);
            state.memory.release(seg.reservation, old - brk);
            seg.charged -= old - brk;
        }
        return new Ok();
    }

    ControlMessage export(Session s, ControlMessage.SegExport r) {
        Segment seg = state.createdBy(r.segId(), s, "export it");
        if (seg.marked()) {
            throw NodeException.inval("segment " + seg.id + " is marked for deletion");
        }
        if ((r.attrs() & ~((1 << ExportAttr.values().length) - 1)) != 0) {
            throw new NodeException(CmiError.NOTSUPP, "unknown export attributes 0x" + Integer.toHexString(r.attrs()));
        }
        if (state.exports.size() >= state.config.maxExports()) {
            throw NodeException.nomem("the node holds its maximum of " + state.config.maxExports() + " exports");
        }
        boolean writeThrough = (r.attrs() & (1 << ExportAttr.WRITE_THROUGH.ordinal())) != 0;
        long exportId = state.newExportId();
        byte[] handle = new RemoteSegmentHandleImpl(state.address, seg.id, seg.id, exportId, seg.size, seg.flags,
            writeThrough).toBytes();
        state.exports.put(exportId, new NodeState.Export(exportId, seg.id, s.id, writeThrough, handle));
        state.targets.computeIfAbsent(seg.id, id -> new RemoteTarget(id, seg.size, seg.has(SegFlag.EXTENSIBLE),
            seg.file.mapWhole(seg.size)));
        seg.everExported = true;
        s.exports.put(exportId, seg.id);
        seg.exports++;
        return new ControlMessage.BytesValue(handle);
    }

    ControlMessage deleteHandle(Session s, ControlMessage.RsegDelete r) {
        RemoteSegmentHandleImpl h;
        try {
            h = (RemoteSegmentHandleImpl) HandleCodec.remoteSegmentHandle(r.handle());
        } catch (RuntimeException e) {
            throw NodeException.inval("not a remote segment handle");
        }
        NodeState.Export e = state.exports.get(h.exportId());
        if (e == null || e.session() != s.id || !Arrays.equals(e.handle(), r.handle())) {
            throw NodeException.inval("no export of this context matches the handle");
        }
        state.exports.remove(e.id());
        s.exports.remove(e.id());
        return new Ok();
    }

    ControlMessage recovery(Session s, ControlMessage.SegRecovery r) {
        Segment seg = state.segment(r.segId());
        if (seg.creatorSession != s.id) {
            throw NodeException.perm("recovery of segment " + seg.id + " is for the process that created it");
        }
        long off = r.offset();
        long len = r.length();
        if (off < 0 || len <= 0 || off % CACHE_LINE != 0 || len % CACHE_LINE != 0 || len > seg.size
                || off > seg.size - len) { // not off + len > size: that overflows for an offset near Long.MAX_VALUE
            throw NodeException.inval("range must be whole cache lines (" + CACHE_LINE + ") within the segment: " + off
                + "+" + len);
        }
        if (len > MAX_RECO_SEGSZ) {
            throw NodeException.inval("one call checks or recovers at most max_reco_segsz (" + MAX_RECO_SEGSZ
                + ") bytes, not " + len);
        }
        return new Ok(); // checked: the engine answers from the ranges in flux

    }

    ControlMessage cacheSet(Session s, ControlMessage.CacheRsegSet r) {
        if (r.bytes() < 0) {
            throw NodeException.inval("cache size must not be negative");
        }
        if (r.segId() == -1) {
            s.defaultCacheBytes = r.bytes();
            return new Ok();
        }
        Segment seg = state.segment(r.segId());
        if (seg.creatorSession != s.id) {
            throw NodeException.perm("only the process that created or imported segment " + seg.id
                + " may size its cache");
        }
        seg.cacheBytes = r.bytes();
        return new Ok();
    }

    ControlMessage cacheGet(Session s, ControlMessage.CacheRsegGet r) {
        Segment seg = state.segment(r.segId());
        if (seg.cacheBytes >= 0) {
            return new ControlMessage.LongValue(seg.cacheBytes);
        }
        Session creator = state.sessions.get(seg.creatorSession);
        long dflt = creator != null && creator.defaultCacheBytes >= 0 ? creator.defaultCacheBytes
            : state.config.defaultCacheBytes();
        return new ControlMessage.LongValue(dflt);
    }

    private static boolean has(int flags, SegFlag f) {
        return (flags & (1 << f.ordinal())) != 0;
    }
}
