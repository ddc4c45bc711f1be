package io.softcmi.node;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.internal.HandleCodec;
import io.softcmi.cmi.internal.NodeAddressImpl;
import io.softcmi.cmi.internal.TokenImpl;
import io.softcmi.wire.ControlMessage;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Access tokens at the home node (cmi(7) "CMI Access Control"): {@code tok_new},
 * {@code tok_newva}, {@code tok_del}. Only the segment's creator makes and revokes them; the
 * data path checks them on every remote access. Called under the engine's lock.
 */
final class TokenService {
    private static final int ALL_ACCESS = (1 << Access.values().length) - 1;
    private final NodeState state;

    TokenService(NodeState state) {
        this.state = state;
    }

    ControlMessage tokNew(Session s, ControlMessage.TokNew r) {
        Segment seg = state.createdBy(r.segId(), s, "make tokens for it");
        if (seg.marked()) {
            throw NodeException.inval("segment " + seg.id + " is marked for deletion");
        }
        if (r.access() == 0 || (r.access() & ~ALL_ACCESS) != 0) {
            throw NodeException.inval("a token needs one or more of READ, WRITE, ATOMIC");
        }
        NodeAddressImpl node;
        try {
            node = (NodeAddressImpl) HandleCodec.nodeAddress(r.node());
        } catch (RuntimeException e) {
            throw NodeException.inval("not a node address");
        }
        boolean any = node.isAny();
        boolean range = r.size() != 0;
        long offset = range ? r.offset() : 0;
        long size = range ? r.size() : seg.size;
        if (range && (offset < 0 || size < 0 || offset % SegmentService.PAGE != 0 || size % SegmentService.PAGE != 0
                || offset + size > seg.size)) {
            throw NodeException.inval("token range must be aligned to seg_prot_align/seg_prot_sz (" + SegmentService.PAGE
                + ") and lie in the segment: " + offset + "+" + size);
        }
        if (!any) {
            for (HomeToken t : state.tokens.values()) {
                if (t.segmentId() == seg.id && t.node() != null && Arrays.equals(t.node(), node.nodeId())
                        && (!range || t.overlaps(offset, size))) {
                    throw new NodeException(CmiError.BOUND, "a token for node " + node + " and segment " + seg.id
                        + (range ? " overlapping this range" : "") + " exists; delete it first");
                }
            }
        }
        long perSegment = state.tokens.values().stream().filter(t -> t.segmentId() == seg.id).count();
        if (state.tokens.size() >= state.config.maxTokens() || perSegment >= state.config.maxTokensPerSegment()) {
            throw NodeException.nomem("too many access tokens");
        }
        byte[] secret = new byte[TokenImpl.SECRET_LENGTH];
        state.random.nextBytes(secret);
        ByteBuffer sb = ByteBuffer.wrap(secret);
        long id = state.newTokenId();
        HomeToken t = new HomeToken(id, seg.id, any ? null : node.nodeId(), r.access(), offset, size, sb.getLong(0),
            sb.getLong(8), s.id);
        state.tokens.put(id, t);
        byte[] bound = any ? new byte[NodeAddressImpl.ID_LENGTH] : node.nodeId();
        return new ControlMessage.BytesValue(new TokenImpl(state.address.nodeId(), seg.id, id, bound, secret).toBytes());
    }

    ControlMessage tokDel(Session s, ControlMessage.TokDel r) {
        TokenImpl token;
        try {
            token = (TokenImpl) HandleCodec.token(r.token());
        } catch (RuntimeException e) {
            throw NodeException.inval("not a token");
        }
        HomeToken t = state.tokens.get(token.tokenId());
        if (t == null || !Arrays.equals(token.homeNodeId(), state.address.nodeId())
                || !t.secretMatches(token.secretHi(), token.secretLo())) {
            throw NodeException.inval("no such token on this node (already revoked?)");
        }
        if (t.creatorSession() != s.id) {
            throw NodeException.perm("only the process that made a token may revoke it");
        }
        state.tokens.remove(t.id());
        return new ControlMessage.Ok();
    }
}
