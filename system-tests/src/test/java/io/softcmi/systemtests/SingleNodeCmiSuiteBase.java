package io.softcmi.systemtests;

import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiException;
import io.softcmi.cmi.CmiInfo;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiVersion;
import io.softcmi.cmi.Reservation;
import io.softcmi.cmi.SegFlag;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What every part of the single-node CMI suite ({@link AbstractSingleNodeCmiTest}) shares: the
 * node under test (a subclass says which), a context opened on the test thread before each test
 * and closed after it, further contexts on threads of their own, and cleanup of reservations
 * (they outlive contexts by design, so a test that makes one deletes it).
 */
@Timeout(60)
abstract class SingleNodeCmiSuiteBase {
    /** No flags. */
    static final Set<SegFlag> NO_FLAGS = Set.of();
    /** The version this suite asks for. */
    static final CmiVersion V1_1 = new CmiVersion(1, 1);

    /** The test thread's context, open during each test. */
    protected CmiContext ctx;
    /** The protection unit of the node ({@code prot_units}). */
    protected long page;
    private final List<ContextThread> others = new ArrayList<>();
    private final Set<Long> reservationKeys = new LinkedHashSet<>();

    /**
     * Where the node under test keeps segment files ({@code seg-<id>}); asked after a context is
     * open.
     *
     * @return the node's shared-memory directory
     */
    protected abstract Path shmDirectory();

    @BeforeEach
    final void openContext() {
        ctx = Cmi.init(V1_1);
        ctx.enable(true); // cmi_enb: loads and stores of any CMI segment need the thread's access epoch
        page = ctx.ctlInfo().protUnits();
    }

    @AfterEach
    final void closeContexts() {
        try {
            deleteReservations();
        } finally {
            for (int i = others.size() - 1; i >= 0; i--) {
                others.get(i).close();
            }
            others.clear();
            try {
                ctx.close();
            } catch (CmiException alreadyClosed) {
                // The test ended the association of this thread itself.
            }
        }
    }

    private void deleteReservations() {
        if (reservationKeys.isEmpty()) {
            return;
        }
        try (ContextThread cleaner = ContextThread.open("reservation-cleaner")) {
            cleaner.run(c -> {
                for (long key : reservationKeys) {
                    try {
                        c.ctlMemReserveSet(key);
                        c.ctlMemReserveDel();
                    } catch (CmiException deletedByTheTest) {
                        // INVAL: the test deleted it already.
                    }
                }
            });
        }
        reservationKeys.clear();
    }

    /**
     * Opens another context of this JVM on a thread of its own, closed after the test.
     *
     * @return the context thread
     */
    protected final ContextThread otherContext() {
        ContextThread t = ContextThread.open("other-context-" + (others.size() + 1));
        others.add(t);
        t.run(c -> c.enable(true));
        return t;
    }

    /**
     * Makes a reservation in {@code c} (on the calling thread) and remembers to delete it.
     *
     * @param c a context the calling thread is associated with
     * @param bytes how much
     * @return the reservation
     */
    protected final Reservation reserve(CmiContext c, long bytes) {
        Reservation r = c.ctlMemReserve(bytes);
        reservationKeys.add(r.rsvKey());
        return r;
    }

    /**
     * Remembers to delete a reservation made without {@link #reserve}.
     *
     * @param key its key
     */
    protected final void deleteAfterTest(long key) {
        reservationKeys.add(key);
    }

    /** @return {@code cmi_ctl(CMI_CTL_INFO)} of the test thread's context */
    protected final CmiInfo info() {
        return ctx.ctlInfo();
    }

    /** @return CMI memory available now */
    protected final long available() {
        return ctx.ctlInfo().maxMemAvail();
    }

    /**
     * @param pages size in protection units
     * @param flags creation flags
     * @return a new segment of the test thread's context
     */
    protected final CmiSegment newSegment(long pages, SegFlag... flags) {
        return ctx.segGet(pages * page, flags.length == 0 ? NO_FLAGS : EnumSet.of(flags[0], flags));
    }

    /**
     * @param segmentId a segment id
     * @return the file holding its memory
     */
    protected final Path segmentFile(long segmentId) {
        return shmDirectory().resolve("seg-" + segmentId);
    }
}
