package io.softcmi.cmi.internal;

import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.SegFlag;
import io.softcmi.cmi.SegInfo;
import io.softcmi.cmi.SegRange;
import io.softcmi.cmi.SegState;
import io.softcmi.cmi.SegStatus;
import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.ControlMessage.Ok;
import io.softcmi.wire.ControlMessage.SegmentReply;
import io.softcmi.wire.SegmentDescriptor;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * The segment calls of one context that ask the node, after the context's thread check:
 * {@code seg_get}, the {@code seg_ctl} queries and changes (status, ranges in flux, break, info)
 * and the handle-size attributes; segments are known through the {@link SegmentDirectory}.
 */
final class SegmentCalls {
    private final NodeChannel channel;
    private final SegmentDirectory segments;
    private final NodeAddress nodeAddress;

    SegmentCalls(NodeChannel channel, SegmentDirectory segments, NodeAddress nodeAddress) {
        this.channel = channel;
        this.segments = segments;
        this.nodeAddress = nodeAddress;
    }

    /** {@code seg_get}; {@code clientConsist}: the context's {@code CMI_CTL_CLIENT_CONSIST} default. */
    CmiSegment segGet(long size, Set<SegFlag> flags, boolean clientConsist) {
        Errors.checkNotNull(flags, "flags");
        EnumSet<SegFlag> f = flags.isEmpty() ? EnumSet.noneOf(SegFlag.class) : EnumSet.copyOf(flags);
        if (f.contains(SegFlag.CLIENT_CONSIST) && f.contains(SegFlag.CLIENT_INCONSIST)) {
            throw Errors.fail(CmiError.INVAL, "CMI_SEG_CLIENT_CONSIST and CMI_SEG_CLIENT_INCONSIST exclude each other");
        }
        if (!f.contains(SegFlag.CLIENT_INCONSIST) && (clientConsist || f.contains(SegFlag.CLIENT_CONSIST))) {
            f.add(SegFlag.CLIENT_CONSIST);
        } else {
            f.add(SegFlag.CLIENT_INCONSIST);
        }
        SegmentReply r = channel.call(new ControlMessage.SegGet(size, FlagBits.toBits(f)), SegmentReply.class);
        return segments.remember(r.segment());
    }

    /** {@code seg_ctl(CMI_SEG_STATUS)}: an import's status comes from its home. */
    SegStatus segStatus(CmiSegment seg) {
        SegmentImpl s = segments.own(Errors.checkNotNull(seg, "segment"));
        SegmentDescriptor d = s.imported()
            ? channel.call(new ControlMessage.ImportStatus(s.id()), ControlMessage.SegmentReply.class).segment()
            : segments.describe(s.id());
        return new SegStatus(d.id(), d.size(), d.brk(), FlagBits.fromBits(d.flags(), SegFlag.class),
            SegState.values()[Math.clamp(d.state(), 0, SegState.values().length - 1)], d.attachCount(), d.creatorPid(),
            d.exported(), d.imported(), s.home());
    }

    /** {@code seg_ctl(CMI_SEG_CHECK)}. */
    Optional<SegRange> segCheck(CmiSegment seg, long offset, long length) {
        ControlMessage.RangeReply r = channel.call(
            new ControlMessage.SegRecovery(segments.own(Errors.checkNotNull(seg, "segment")).id(), offset, length, false),
            ControlMessage.RangeReply.class);
        return r.found() ? Optional.of(new SegRange(r.offset(), r.size())) : Optional.empty();
    }

    /** {@code seg_ctl(CMI_SEG_RECO)}. */
    void segRecover(CmiSegment seg, long offset, long length) {
        channel.call(new ControlMessage.SegRecovery(segments.own(Errors.checkNotNull(seg, "segment")).id(), offset, length,
            true), Ok.class);
    }

    /** {@code seg_ctl(CMI_SEG_BRK)}. */
    void segBreak(CmiSegment seg, long breakSize) {
        channel.call(new ControlMessage.SegBreak(segments.own(Errors.checkNotNull(seg, "segment")).id(), breakSize), Ok.class);
    }

    /** {@code seg_ctl(CMI_SEG_INFO)}. */
    SegInfo segInfo(CmiSegment seg) {
        SegmentImpl s = segments.own(Errors.checkNotNull(seg, "segment"));
        SegmentDescriptor d = segments.describe(s.id());
        Set<SegFlag> flags = FlagBits.fromBits(d.flags(), SegFlag.class);
        long align = flags.contains(SegFlag.LARGE_PAGES) ? CmiRuntime.LARGE_PAGE : CmiRuntime.PAGE;
        return new SegInfo(align, d.size(), flags, CmiRuntime.PAGE, CmiRuntime.PAGE);
    }

    /** {@code attr_get(CMI_ATTR_RSEG_SIZE)}. */
    long attrRsegSize(CmiSegment seg) {
        SegmentImpl s = segments.own(Errors.checkNotNull(seg, "segment"));
        segments.describe(s.id()); // INVAL once the segment is gone
        return new RemoteSegmentHandleImpl((NodeAddressImpl) nodeAddress, s.id(), 1, 1, s.size(), 0, false)
            .toBytes().length;
    }

    /** {@code attr_get(CMI_ATTR_TOKEN_SIZE)}. */
    long attrTokenSize(CmiSegment seg) {
        segments.describe(segments.own(Errors.checkNotNull(seg, "segment")).id()); // INVAL once the segment is gone
        return HandleCodec.tokenSize();
    }
}
