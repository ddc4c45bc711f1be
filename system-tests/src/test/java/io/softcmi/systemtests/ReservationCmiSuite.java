package io.softcmi.systemtests;

import io.softcmi.cmi.CmiError;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.Reservation;
import io.softcmi.cmi.SegFlag;
import io.softcmi.cmi.SegState;
import org.junit.jupiter.api.Test;

import java.util.Set;

import static io.softcmi.systemtests.CmiAssertions.assertCmiError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * Part of {@link AbstractSingleNodeCmiTest}: memory reservations ({@code CMI_CTL_MEM_RESERVE},
 * {@code _DEL}, {@code _SET}; cmi(7) "Memory Reservation").
 */
abstract class ReservationCmiSuite extends ExtensibleSegmentCmiSuite {

    /** @return what the test context's reservation holds now ({@code CMI_CTL_MEM_RESERVE} of the same size) */
    private Reservation current(long reservedBytes) {
        return ctx.ctlMemReserve(reservedBytes);
    }

    @Test
    void shouldCreateGrowAndShrinkAReservation() {
        long before = available();
        Reservation r = reserve(ctx, 8 * page);
        assertNotEquals(0, r.rsvKey(), "0 means no reservation");
        assertEquals(8 * page, r.memReserved());
        assertEquals(0, r.memAllocd());
        assertEquals(before - 8 * page, available());

        Reservation grown = ctx.ctlMemReserve(16 * page);
        assertEquals(r.rsvKey(), grown.rsvKey(), "a context with a reservation resizes it");
        assertEquals(16 * page, grown.memReserved());
        assertEquals(before - 16 * page, available());

        Reservation shrunk = ctx.ctlMemReserve(4 * page);
        assertEquals(r.rsvKey(), shrunk.rsvKey());
        assertEquals(before - 4 * page, available());

        ctx.ctlMemReserveDel();
        assertEquals(before, available());
    }

    @Test
    void shouldCountAllocationsAgainstTheReservation() {
        reserve(ctx, 8 * page);
        long withReservation = available();
        CmiSegment a = newSegment(2);
        CmiSegment ext = newSegment(8, SegFlag.EXTENSIBLE);
        ctx.segBreak(ext, 3 * page);
        assertEquals(5 * page, current(8 * page).memAllocd());
        assertEquals(withReservation, available(), "allocations inside the reservation take nothing more");
        ctx.segBreak(ext, page);
        assertEquals(3 * page, current(8 * page).memAllocd());
        ctx.segRemove(a);
        ctx.segRemove(ext);
        assertEquals(0, current(8 * page).memAllocd());
    }

    @Test
    void shouldRejectShrinkingAReservationBelowWhatIsAllocated() {
        Reservation r = reserve(ctx, 4 * page);
        newSegment(3);
        assertCmiError(CmiError.INVAL, () -> ctx.ctlMemReserve(2 * page));
        Reservation unchanged = current(4 * page);
        assertEquals(r.rsvKey(), unchanged.rsvKey());
        assertEquals(3 * page, unchanged.memAllocd());
        assertEquals(3 * page, ctx.ctlMemReserve(3 * page).memReserved(), "down to what is allocated is fine");
    }

    @Test
    void shouldFailReservingMoreThanIsAvailableWithNoMem() {
        long all = available();
        assertCmiError(CmiError.NOMEM, () -> ctx.ctlMemReserve(all + page));
        assertCmiError(CmiError.INVAL, ctx::ctlMemReserveDel, "the failed request made no reservation");
        Reservation r = reserve(ctx, page);
        assertCmiError(CmiError.NOMEM, () -> ctx.ctlMemReserve(all + page));
        assertEquals(page, current(page).memReserved(), "the failed growth left the reservation as it was");
        assertEquals(r.rsvKey(), current(page).rsvKey());
        assertEquals(all, ctx.ctlMemReserve(all).memReserved(), "everything available can be reserved");
    }

    @Test
    void shouldRejectDeletingWhenNoReservationIsAssociated() {
        assertCmiError(CmiError.INVAL, ctx::ctlMemReserveDel);
        reserve(ctx, page);
        ctx.ctlMemReserveDel();
        assertCmiError(CmiError.INVAL, ctx::ctlMemReserveDel);
    }

    @Test
    void shouldRejectSettingADeletedReservationAndKeepTheCurrentOne() {
        Reservation mine = reserve(ctx, 2 * page);
        ContextThread other = otherContext();
        long deleted = other.call(c -> {
            long key = reserve(c, page).rsvKey();
            c.ctlMemReserveDel();
            return key;
        });
        assertCmiError(CmiError.INVAL, () -> ctx.ctlMemReserveSet(deleted));
        assertEquals(mine.rsvKey(), current(2 * page).rsvKey(), "the association is unchanged");

        ctx.ctlMemReserveDel();
        assertCmiError(CmiError.INVAL, () -> ctx.ctlMemReserveSet(mine.rsvKey()));
    }

    @Test
    void shouldRejectSettingAnUnknownReservation() {
        assertCmiError(CmiError.INVAL, () -> ctx.ctlMemReserveSet(0x5eed_0000_0000_0001L));
        assertCmiError(CmiError.INVAL, () -> ctx.ctlMemReserveSet(-1));
    }

    @Test
    void shouldDissociateFromTheReservationWithKeyZero() {
        Reservation r = reserve(ctx, 4 * page);
        ctx.ctlMemReserveSet(0);
        assertCmiError(CmiError.INVAL, ctx::ctlMemReserveDel, "no reservation is associated any more");
        long before = available();
        newSegment(1);
        assertEquals(before - page, available(), "allocations without a reservation take free memory");
        ctx.ctlMemReserveSet(r.rsvKey());
        assertEquals(0, current(4 * page).memAllocd(), "the allocation was not counted against the reservation");
        ctx.ctlMemReserveSet(0);
        ctx.ctlMemReserveSet(0);
    }

    @Test
    void shouldKeepAReservationAfterTheContextThatMadeItEnds() {
        ContextThread creator = otherContext();
        long key = creator.call(c -> reserve(c, 4 * page).rsvKey());
        long before = available();
        creator.close();
        assertEquals(before, available(), "the reservation still holds its memory");

        ctx.ctlMemReserveSet(key);
        newSegment(1);
        Reservation r = current(4 * page);
        assertEquals(key, r.rsvKey());
        assertEquals(page, r.memAllocd());
        ctx.ctlMemReserveDel();
    }

    @Test
    void shouldShareAReservationBetweenContexts() {
        Reservation r = reserve(ctx, 8 * page);
        ContextThread other = otherContext();
        other.run(c -> {
            c.ctlMemReserveSet(r.rsvKey());
            c.segGet(2 * page, Set.of());
        });
        assertEquals(2 * page, current(8 * page).memAllocd());
        other.run(c -> c.ctlMemReserveSet(0));
    }

    @Test
    void shouldKeepSegmentsOfADeletedReservation() {
        reserve(ctx, 4 * page);
        CmiSegment seg = newSegment(2);
        long before = available();
        ctx.ctlMemReserveDel();
        assertEquals(before + 2 * page, available(), "only what its segments use stays held");
        assertEquals(SegState.ACTIVE, ctx.segStatus(seg).state());
        CmiMapping m = ctx.segAt(seg, Set.of());
        m.putLong(0, 1);
        ctx.segDt(m);
        ctx.segRemove(seg);
        assertEquals(before + 4 * page, available());
    }

    @Test
    void shouldRejectNegativeReservation() {
        assertCmiError(CmiError.INVAL, () -> ctx.ctlMemReserve(-page));
    }
}
