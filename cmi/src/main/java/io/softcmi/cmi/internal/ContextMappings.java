package io.softcmi.cmi.internal;

import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.ControlMessage.Attached;
import io.softcmi.wire.ControlMessage.Ok;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The attaches of one context: {@code seg_at} and {@code seg_dt}, which mappings are live, the newest token of each proxy (set on
 * its attaches, also those registered after the notice that brought it) and the ranges in flux
 * of each local segment (set on its attaches, also later ones).
 */
final class ContextMappings {
    private final Map<CmiMapping, Boolean> mappings = new ConcurrentHashMap<>();
    /** The newest token of each proxy, by proxy id (see {@link #updateToken}). */
    private final Map<Long, TokenImpl> latestTokens = new ConcurrentHashMap<>();
    /** Ranges in flux of local segments, as the node last announced them (for attaches made later). */
    private final Map<Long, long[]> fluxBySegment = new ConcurrentHashMap<>();
    private final ContextImpl context;
    private final NodeChannel channel;

    ContextMappings(ContextImpl context, NodeChannel channel) {
        this.context = context;
        this.channel = channel;
    }

    /** {@code seg_at} of a segment of the context. */
    CmiMapping attach(SegmentImpl s, boolean readOnly) {
        if (s.imported()) {
            RemoteMapping rm = SegmentMapper.mapRemote(context, s, channel.call(new ControlMessage.SegAttach(s.id(), readOnly),
                ControlMessage.ProxyAttached.class), readOnly);
            registerRemote(rm);
            return rm;
        }
        Attached a = channel.call(new ControlMessage.SegAttach(s.id(), readOnly), Attached.class);
        LocalMapping m;
        try {
            m = SegmentMapper.map(context, s, a.attachId(), a.segment(), readOnly);
        } catch (RuntimeException e) {
            channel.call(new ControlMessage.SegDetach(a.attachId()), Ok.class);
            throw e;
        }
        registerLocal(m, s.id());
        return m;
    }

    /** {@code seg_dt}. */
    void detach(CmiMapping mapping) {
        if (!remove(mapping)) {
            throw Errors.fail(CmiError.INVAL, "not an attached mapping of this context: " + mapping);
        }
        if (mapping instanceof RemoteMapping rm) {
            rm.detach();
            channel.call(new ControlMessage.SegDetach(rm.attachId), Ok.class);
            return;
        }
        LocalMapping m = (LocalMapping) mapping;
        m.unmap();
        channel.call(new ControlMessage.SegDetach(m.attachId), Ok.class);
    }

    /**
     * Records the newest token of a proxy and sets it on its attaches. A notice may arrive
     * between an attach's reply and the attach's registration; the newest token is kept by proxy
     * so {@link #registerRemote} picks it up (notices are processed in order, so this is never
     * older than a token in a later reply).
     */
    synchronized void updateToken(long proxyId, TokenImpl token) {
        latestTokens.put(proxyId, token);
        for (CmiMapping m : mappings.keySet()) {
            if (m instanceof RemoteMapping rm && rm.segment.id() == proxyId) {
                rm.setToken(token);
            }
        }
    }

    /** Registers a new attach of a proxy, with the newest token a notice may have brought meanwhile. */
    private synchronized void registerRemote(RemoteMapping rm) {
        mappings.put(rm, Boolean.TRUE);
        TokenImpl newest = latestTokens.get(rm.segment.id());
        if (newest != null) {
            rm.setToken(newest);
        }
    }

    /** Registers a new attach of a local segment, with the ranges in flux the node last announced for it. */
    private void registerLocal(LocalMapping m, long segmentId) {
        mappings.put(m, Boolean.TRUE);
        long[] inFlux = fluxBySegment.get(segmentId);
        if (inFlux != null) {
            m.setFlux(inFlux);
        }
    }

    /** @return whether {@code mapping} was a live attach of this context (it no longer is) */
    private boolean remove(CmiMapping mapping) {
        return mapping != null && mappings.remove(mapping) != null;
    }

    /** The node announced which ranges of a local segment are in flux: every attach of it checks them. */
    void fluxChanged(long segmentId, List<Long> ranges) {
        setFlux(segmentId, ranges.stream().mapToLong(Long::longValue).toArray());
    }

    /**
     * {@code seg_ctl(CMI_SEG_RECO)} of {@code [start, end)} succeeded: the range leaves the ranges
     * in flux of this context's attaches now, not only when the node's notice (sent after its
     * reply) arrives.
     */
    synchronized void recovered(long segmentId, long start, long end) {
        long[] pairs = fluxBySegment.get(segmentId);
        if (pairs != null) {
            setFlux(segmentId, FluxPairs.without(pairs, start, end));
        }
    }

    private synchronized void setFlux(long segmentId, long[] pairs) {
        for (CmiMapping m : mappings.keySet()) {
            if (m instanceof LocalMapping lm && lm.segmentId == segmentId) {
                lm.setFlux(pairs);
            }
        }
        if (pairs.length == 0) {
            fluxBySegment.remove(segmentId);
        } else {
            fluxBySegment.put(segmentId, pairs);
        }
    }

    /** A thread's access epoch closed: local attaches check it afresh, imports forget its line hint. */
    void forgetEnabled(Thread thread) {
        for (CmiMapping m : mappings.keySet()) {
            if (m instanceof LocalMapping lm) {
                lm.forgetEnabled(thread);
            } else if (m instanceof RemoteMapping rm) {
                rm.forgetEnabled(thread);
            }
        }
    }

    /** {@code CMI_CTL_CACHE_RSEG_SET}: live caches of the import shrink at their next miss. */
    void setCacheCapacity(long proxyId, long bytes) {
        for (CmiMapping m : mappings.keySet()) {
            if (m instanceof RemoteMapping rm && rm.cache != null && rm.segment.id() == proxyId) {
                rm.cache.setCapacity(bytes); // live caches of this import shrink at their next miss
            }
        }
    }

    /** The context ends: every attach is unmapped. */
    void unmapAll() {
        for (CmiMapping m : mappings.keySet()) {
            if (m instanceof LocalMapping lm) {
                lm.unmap();
            } else if (m instanceof RemoteMapping rm) {
                rm.detach();
            }
        }
        mappings.clear();
    }
}
