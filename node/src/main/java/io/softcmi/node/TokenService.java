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
 * data path checks them on every remote access and admits each request that passes under its
 * token ({@link AccessGate}). Called under the engine's lock, except {@link #drained}, the wait
 * of {@code tok_del} for the requests admitted before it.
 */
final class TokenService {
    private static final System.Logger LOG = System.getLogger("io.softcmi.node");
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
                || size > seg.size || offset > seg.size - size)) { // offset + size could overflow
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

    /**
     * {@code tok_del}, its first half (under the engine's lock): checks the caller, closes the
     * token's gate (every later request under it is refused with {@code TOKEN}) and removes it.
     * The reply waits for {@link #drained}.
     *
     * @return the revoked token's gate, to wait on outside the lock
     * @throws NodeException INVAL if it is no token of this node (or already revoked), PERM if
     *         the caller did not make it
     */
    AccessGate tokDel(Session s, ControlMessage.TokDel r) {
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
        t.gate.close(); // first: a request that finds it in the map is refused from now on
        state.tokens.remove(t.id());
        return t.gate;
    }

    /**
     * {@code tok_del}, its second half (without the engine's lock, so that other control calls
     * go on meanwhile): waits until every request admitted under the token is done (its bytes
     * landed or copied out, its notice queued), at most {@link NodeConfig#revokeDrainMs}; then
     * cuts the data connections whose streamed store or large read still waits on its client,
     * and waits as long again for them to close.
     *
     * @param gate the revoked token's gate
     * @return OK once nothing admitted under it is in flight; INVAL if requests were still in
     *         flight after both waits (the token is revoked either way)
     */
    ControlMessage drained(AccessGate gate) {
        long bound = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(state.config.revokeDrainMs());
        int cut = gate.drain(bound);
        if (cut > 0) {
            LOG.log(System.Logger.Level.INFO, "tok_del: cut {0} data connection(s) whose request under the token "
                + "waited on its client for more than {1} ms", cut, state.config.revokeDrainMs());
        } else if (cut < 0) {
            LOG.log(System.Logger.Level.WARNING, "tok_del: {0} request(s) under the token still in flight after {1} ms",
                gate.inFlight(), 2 * state.config.revokeDrainMs());
            return new ControlMessage.ErrorReply(CmiError.INVAL.ordinal(), "token revoked, but " + gate.inFlight()
                + " request(s) admitted under it were still in flight after " + 2 * state.config.revokeDrainMs() + " ms");
        }
        return new ControlMessage.Ok();
    }
}
