package io.softcmi.cmi.internal;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.CmiVersion;
import io.softcmi.cmi.ExportAttr;
import io.softcmi.cmi.NodeAddress;
import io.softcmi.cmi.RemoteSegmentHandle;
import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.ControlMessage.Ok;
import java.util.Set;

/**
 * The calls that share segments across nodes, after the context's thread check: {@code seg_exp},
 * {@code rseg_del}, {@code seg_imp}, {@code CMI_SEG_TOKEN} and the token calls
 * ({@code tok_new}, {@code tok_newva}, {@code tok_del}), each a request to the node.
 */
final class SharingCalls {
    private final NodeChannel channel;
    private final CmiVersion version;
    private final SegmentDirectory segments;
    private final ContextMappings mappings;

    SharingCalls(NodeChannel channel, CmiVersion version, SegmentDirectory segments, ContextMappings mappings) {
        this.channel = channel;
        this.version = version;
        this.segments = segments;
        this.mappings = mappings;
    }

    /** {@code seg_exp}. */
    RemoteSegmentHandle segExp(CmiSegment seg, Set<ExportAttr> attrs) {
        SegmentImpl s = segments.own(Errors.checkNotNull(seg, "segment"));
        if (s.imported()) {
            throw Errors.fail(CmiError.INVAL, "an imported segment cannot be exported: " + s);
        }
        int bits = FlagBits.toBits(Errors.checkNotNull(attrs, "attributes"));
        byte[] handle = channel.call(new ControlMessage.SegExport(s.id(), bits), ControlMessage.BytesValue.class).value();
        return HandleCodec.remoteSegmentHandle(handle);
    }

    /** {@code rseg_del}. */
    void rsegDel(RemoteSegmentHandle rseg) {
        if (!(Errors.checkNotNull(rseg, "remote segment handle") instanceof RemoteSegmentHandleImpl h)) {
            throw Errors.fail(CmiError.INVAL, "not a remote segment handle of this library");
        }
        channel.call(new ControlMessage.RsegDelete(h.toBytes()), Ok.class);
    }

    /** {@code seg_imp}. */
    CmiSegment segImp(RemoteSegmentHandle rseg) {
        if (!(Errors.checkNotNull(rseg, "remote segment handle") instanceof RemoteSegmentHandleImpl h)) {
            throw Errors.fail(CmiError.INVAL, "not a remote segment handle of this library");
        }
        return segments.remember(channel.call(new ControlMessage.SegImport(h.toBytes()), ControlMessage.ProxyReply.class));
    }

    /** {@code seg_ctl(CMI_SEG_TOKEN)}: the token goes to the node and to the import's attaches. */
    void segSetToken(CmiSegment imported, CmiToken token) {
        SegmentImpl s = segments.own(Errors.checkNotNull(imported, "segment"));
        Errors.checkNotNull(token, "token");
        if (!s.imported()) {
            throw Errors.fail(CmiError.INVAL, "CMI_SEG_TOKEN applies to imported segments only: " + s);
        }
        if (!(token instanceof TokenImpl t)) {
            throw Errors.fail(CmiError.INVAL, "not a token of this library");
        }
        channel.call(new ControlMessage.SegSetToken(s.id(), t.toBytes()), Ok.class);
        mappings.updateToken(s.id(), t);
    }

    /** {@code tok_new} ({@code size} 0: the whole segment) and {@code tok_newva}. */
    CmiToken newToken(CmiSegment seg, NodeAddress node, Set<Access> access, long offset, long size) {
        SegmentImpl s = segments.own(Errors.checkNotNull(seg, "segment"));
        if (s.imported()) {
            throw Errors.fail(CmiError.INVAL, "tokens are made at the home node, not for an import: " + s);
        }
        if (!(Errors.checkNotNull(node, "node address") instanceof NodeAddressImpl n)) {
            throw Errors.fail(CmiError.INVAL, "not a node address of this library: " + node);
        }
        if (Errors.checkNotNull(access, "access").isEmpty()) {
            throw Errors.fail(CmiError.INVAL, "a token needs one or more of READ, WRITE, ATOMIC");
        }
        byte[] bytes = channel.call(new ControlMessage.TokNew(s.id(), n.toBytes(), FlagBits.toBits(access), offset, size),
            ControlMessage.BytesValue.class).value();
        return HandleCodec.token(bytes);
    }

    /** {@code tok_newva}: needs CMI API 1.1 and a positive range. */
    CmiToken tokNewRange(CmiSegment seg, long offset, long size, NodeAddress node, Set<Access> access) {
        if (version.minor() < 1) {
            throw Errors.fail(CmiError.NOTSUPP, "tok_newva needs CMI API 1.1; this context negotiated " + version);
        }
        if (size <= 0 || offset < 0) {
            throw Errors.fail(CmiError.INVAL, "token range must be a positive size at a non-negative offset: " + offset
                + "+" + size);
        }
        return newToken(seg, node, access, offset, size);
    }

    /** {@code tok_del}. */
    void tokDel(CmiToken token) {
        if (!(Errors.checkNotNull(token, "token") instanceof TokenImpl t)) {
            throw Errors.fail(CmiError.INVAL, "not a token of this library");
        }
        channel.call(new ControlMessage.TokDel(t.toBytes()), Ok.class);
    }
}
