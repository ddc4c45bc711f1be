package io.softcmi.node;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.CmiAccessError;
import io.softcmi.cmi.internal.AccessStatus;
import io.softcmi.wire.DataProtocol;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * The home's side of one remote access ({@code cmi(7)} "CMI Access Control", "Segment
 * Lifetime"): finds the exported segment, checks the token, the rights, the range and the break,
 * and gives the data path the slice of the daemon's mapping to read or write. A request that
 * passes is admitted under its token ({@link #admit}, {@link AccessGate}), so that
 * {@code tok_del} can wait for it. Stateless apart from the node's concurrent tables; called by
 * the I/O loops without any lock.
 */
final class HomeAccess {
    private static final VarHandle ATOMIC_LONG = ValueLayout.JAVA_LONG.varHandle();
    private final NodeState state;

    HomeAccess(NodeState state) {
        this.state = state;
    }

    /** Access the operation needs, by op code. */
    static Access accessOf(byte op) {
        return switch (op) {
            case DataProtocol.OP_GET -> Access.READ;
            case DataProtocol.OP_PUT -> Access.WRITE;
            case DataProtocol.OP_CAS -> Access.ATOMIC;
            case DataProtocol.OP_NOTIFY -> Access.WRITE;
            case DataProtocol.OP_FILL -> Access.READ;
            case DataProtocol.OP_DIFF -> Access.WRITE;
            default -> null;
        };
    }

    /**
     * Checks one access, without admitting it: for a further check of a request already
     * admitted ({@link #admit}), or a look that touches nothing.
     *
     * @param clientNode the node the connection's ticket proved
     * @param segmentId home segment id
     * @param tokenId token id
     * @param secretHi token secret, first half
     * @param secretLo token secret, second half
     * @param access the access wanted
     * @param offset offset in the segment
     * @param length bytes touched
     * @return {@link DataProtocol#STATUS_OK} or the error status to answer
     */
    byte check(byte[] clientNode, long segmentId, long tokenId, long secretHi, long secretLo, Access access, long offset,
            long length) {
        return admit(null, clientNode, segmentId, tokenId, secretHi, secretLo, access, offset, length);
    }

    /**
     * Checks one access and, if it passes, admits it under its token ({@link AccessGate}): until
     * the request is done ({@link Admission#leave()}) a revocation of the token waits for it.
     *
     * @param admission the connection's slot, entered when the check passes (null: check only)
     * @return {@link DataProtocol#STATUS_OK} (admitted) or the error status to answer (not admitted)
     * @see #check
     */
    byte admit(Admission admission, byte[] clientNode, long segmentId, long tokenId, long secretHi, long secretLo,
            Access access, long offset, long length) {
        RemoteTarget target = state.targets.get(segmentId);
        if (target == null) {
            return AccessStatus.toWire(CmiAccessError.SINVAL);
        }
        if (target.marked) {
            return AccessStatus.toWire(CmiAccessError.TOKEN);
        }
        HomeToken t = state.tokens.get(tokenId);
        if (t == null || t.segmentId() != segmentId || !t.secretMatches(secretHi, secretLo)
                || t.node() != null && !Arrays.equals(t.node(), clientNode)) {
            return AccessStatus.toWire(CmiAccessError.TOKEN);
        }
        if (offset < 0 || length < 0 || offset > target.size - length || !t.allows(access) || !t.covers(offset, length)) {
            return AccessStatus.toWire(CmiAccessError.PERM);
        }
        if (access == Access.ATOMIC && (offset & 7) != 0) {
            return AccessStatus.toWire(CmiAccessError.PERM);
        }
        if (offset > target.currentBreak() - length) {
            return AccessStatus.toWire(CmiAccessError.SEG_BRK);
        }
        long[] flux = target.flux;
        if (flux.length != 0 && FluxRanges.touches(flux, offset, length)) {
            return AccessStatus.toWire(CmiAccessError.CONSIST);
        }
        if (admission != null && !admission.enter(t.gate)) {
            return AccessStatus.toWire(CmiAccessError.TOKEN); // revoked since the look-up
        }
        return DataProtocol.STATUS_OK;
    }

    /**
     * Checks only that a token is valid for a segment (an ACQUIRE or a FORGET needs no particular
     * right), and admits the request under it ({@link #admit}).
     *
     * @param admission the connection's slot, entered when the check passes
     * @return {@link DataProtocol#STATUS_OK} (admitted) or the error status to answer
     */
    byte admitToken(Admission admission, byte[] clientNode, long segmentId, long tokenId, long secretHi, long secretLo) {
        RemoteTarget target = state.targets.get(segmentId);
        if (target == null) {
            return AccessStatus.toWire(CmiAccessError.SINVAL);
        }
        HomeToken t = state.tokens.get(tokenId);
        if (target.marked || t == null || t.segmentId() != segmentId || !t.secretMatches(secretHi, secretLo)
                || t.node() != null && !Arrays.equals(t.node(), clientNode) || !admission.enter(t.gate)) {
            return AccessStatus.toWire(CmiAccessError.TOKEN);
        }
        return DataProtocol.STATUS_OK;
    }

    /** @return whether a (checked) token grants WRITE */
    boolean grantsWrite(long tokenId) {
        HomeToken t = state.tokens.get(tokenId);
        return t != null && t.allows(Access.WRITE);
    }

    /** @return the exported segment's size, or 0 if it is gone */
    long size(long segmentId) {
        RemoteTarget target = state.targets.get(segmentId);
        return target == null ? 0 : target.size;
    }

    /** @return the node's record of remote stores in flight */
    WritesInFlight writes() {
        return state.writes;
    }

    /** @return the contexts whose connections the node refuses */
    EndedWriters endedWriters() {
        return state.endedWriters;
    }

    /** @return the node's coherence directory */
    CoherenceDirectory coherence() {
        return state.coherence;
    }

    /**
     * The bytes an access that passed {@link #check} reads or writes, or null if the segment
     * was reclaimed since.
     */
    MemorySegment slice(long segmentId, long offset, long length) {
        RemoteTarget target = state.targets.get(segmentId);
        return target == null ? null : target.data.asSlice(offset, length);
    }

    /**
     * Notification extension ({@code docs/notifications.md}): hands a notification that passed
     * {@link #check} (as an 8-byte store) to the segment's creator, without ever waiting (dropped
     * if the creator is gone). Asked {@link #notificationMustWait} first.
     */
    void notifyCreator(long segmentId, long offset, long value, byte[] clientNode) {
        state.notifications.deliver(segmentId, offset, value, clientNode);
    }

    /**
     * The back-pressure of remote notifications: whether the segment's creator is too far behind
     * reading its notices for one more now ({@link NotificationService#mustWait}).
     *
     * @param resume run once the creator has caught up (then the notification is served again)
     * @return true if the notification must be held back until {@code resume} runs
     */
    boolean notificationMustWait(long segmentId, Runnable resume) {
        return state.notifications.mustWait(segmentId, resume);
    }

    /** @return the unwritten notices of the segment's creator (0 if it has none or no creator) */
    long notificationBacklog(long segmentId) {
        return state.notifications.backlog(segmentId);
    }

    /**
     * {@code atm_cas} at the home.
     *
     * @return the value before
     * @throws IllegalStateException if the segment was unmapped meanwhile
     */
    static long compareAndExchange(MemorySegment word, long expected, long swap) {
        return (long) ATOMIC_LONG.compareAndExchange(word, 0L, expected, swap);
    }
}
