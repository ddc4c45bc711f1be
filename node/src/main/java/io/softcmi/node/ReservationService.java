package io.softcmi.node;

import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.ControlMessage.Ok;

/**
 * Memory reservations (cmi(7) "Memory Reservation"; {@code CMI_CTL_MEM_RESERVE},
 * {@code _DEL}, {@code _SET}) and their deletion by {@code cmiadm}. Called under the engine's lock.
 */
final class ReservationService {
    private final NodeState state;

    ReservationService(NodeState state) {
        this.state = state;
    }

    ControlMessage reserve(Session s, ControlMessage.MemReserve r) {
        if (r.bytes() < 0) {
            throw NodeException.inval("reservation size must not be negative");
        }
        MemoryReservation rsv = s.reservation;
        if (rsv == null || rsv.deleted) {
            rsv = new MemoryReservation(state.newReservationKey(), s.user, r.bytes());
            state.memory.add(rsv);
            state.reservations.put(rsv.key, rsv);
            s.reservation = rsv;
        } else {
            state.memory.resize(rsv, r.bytes());
        }
        return reply(rsv);
    }

    static ControlMessage.ReservationReply reply(MemoryReservation rsv) {
        return new ControlMessage.ReservationReply(rsv.key, rsv.reserved, rsv.allocated);
    }

    ControlMessage deleteOwn(Session s) {
        if (s.reservation == null || s.reservation.deleted) {
            throw NodeException.inval("no memory reservation is associated with this context");
        }
        delete(s.reservation);
        s.reservation = null;
        return new Ok();
    }

    ControlMessage deleteByKey(Session s, long key) {
        MemoryReservation rsv = state.reservations.get(key);
        if (rsv == null || rsv.deleted) {
            throw NodeException.inval("no memory reservation " + key);
        }
        if (!rsv.owner.equals(s.user)) {
            throw NodeException.perm("reservation " + key + " belongs to another user");
        }
        delete(rsv);
        for (Session other : state.sessions.values()) {
            if (other.reservation == rsv) {
                other.reservation = null;
            }
        }
        return new Ok();
    }

    private void delete(MemoryReservation rsv) {
        state.memory.delete(rsv);
        // The key is gone at once; the memory its segments use is held until they are reclaimed.
        state.reservations.remove(rsv.key);
    }

    ControlMessage set(Session s, ControlMessage.MemReserveSet r) {
        if (r.key() == 0) {
            s.reservation = null;
            return new Ok();
        }
        MemoryReservation rsv = state.reservations.get(r.key());
        if (rsv == null || rsv.deleted) {
            throw NodeException.inval("no memory reservation " + r.key());
        }
        if (!rsv.owner.equals(s.user)) {
            throw NodeException.perm("reservation " + r.key() + " belongs to another user");
        }
        s.reservation = rsv;
        return new Ok();
    }
}
