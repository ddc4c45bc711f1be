package io.softcmi.smi.internal;

import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.smi.SmiError;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.BooleanSupplier;

/**
 * Which processes of the job have entered {@code SMI_Finalize}, and the check every SMI wait on a
 * particular partner makes with it. A process that enters {@code SMI_Finalize} sets its bit of the
 * {@code FINALIZING} bitmap in the bootstrap segment ({@link Layout}; {@code atm_cas} at the
 * home) before its last barriers: from then on it makes no SMI call that could end another's wait
 * (no signal, no unlock, no increment, no send, no receive, no PT2PT creation or free). So a wait
 * for a signal of that process, for a mutex it holds, for its progress counter to reach a value it
 * has not reached, for a message from it, for it to read a message, or for it at a PT2PT
 * rendezvous, can never complete.
 *
 * <p>A wait does not ask on every poll: {@link Waker}s and the progress-counter wait run
 * {@link Job#checkWait} only when they have waited long enough to block (each blocking re-check
 * of {@link NotifyWaker}, every 256 polls of {@link PollingWaker} and {@link Counters}), which
 * reads the bitmap here (one bulk read at the bootstrap's home). If the partner has gone and the
 * wait's condition is still false when read <em>after</em> the bitmap (a partner's last post lands
 * before it sets its bit), the wait throws {@link SmiError#OTHER}. The manual gives no code for
 * this case (§9 lists only {@code SUCCESS}, {@code PARAM}, {@code NOINIT}); {@code OTHER} is its
 * "error not further stated". A process that dies instead is not seen here: {@code smirun} ends
 * the job when a rank exits, the watchdog when one hangs.
 */
final class Departures {
    /** A wait for a signal of any process other than this one ({@code SMI_SIGNAL_ANY}). */
    static final int ANY = -1;
    /** A wait not tied to one partner (the barrier has its own check, {@link Job#checkWait}). */
    static final int NONE = -2;

    private final CmiContext ctx;
    private final CmiMapping boot;
    private final int rank;
    private final int size;

    /**
     * @param ctx the context
     * @param boot the job's bootstrap segment, as attached here
     * @param rank this process
     * @param size the number of processes
     */
    Departures(CmiContext ctx, CmiMapping boot, int rank, int size) {
        this.ctx = ctx;
        this.boot = boot;
        this.rank = rank;
        this.size = size;
    }

    /** Sets this process's bit: called once, when {@code SMI_Finalize} starts. */
    void announce() {
        long off = Layout.BOOT_FINALIZING + 8L * (rank / 64);
        long bit = 1L << (rank % 64);
        long guess = 0;
        while (true) {
            long seen = ctx.atmCas(boot, off, guess, guess | bit);
            if (seen == guess || (seen & bit) != 0) {
                return;
            }
            guess = seen;
        }
    }

    /** @return the bitmap: bit {@code r % 64} of word {@code r / 64} is set once process r entered SMI_Finalize */
    long[] read() {
        int words = (size + 63) / 64;
        MemorySegment buf = MemorySegment.ofArray(new byte[8 * words]);
        ctx.rmb();
        boot.get(Layout.BOOT_FINALIZING, buf);
        long[] bits = new long[words];
        for (int w = 0; w < words; w++) {
            bits[w] = buf.get(ValueLayout.JAVA_LONG_UNALIGNED, 8L * w);
        }
        return bits;
    }

    /**
     * Whether nothing can end a wait any more: the partner it waits for (or, for {@link #ANY},
     * every process other than this one) has entered {@code SMI_Finalize}. A wait on this process
     * itself (another of its threads may end it) and a wait with {@link #NONE} never are.
     *
     * @param departed the bitmap ({@link #read})
     * @param partner a rank, {@link #ANY} or {@link #NONE}
     * @param self this process
     * @param size the number of processes
     * @return true if the wait can never complete
     */
    static boolean hopeless(long[] departed, int partner, int self, int size) {
        if (partner == NONE || partner == self) {
            return false;
        }
        if (partner != ANY) {
            return gone(departed, partner);
        }
        for (int r = 0; r < size; r++) {
            if (r != self && !gone(departed, r)) {
                return false;
            }
        }
        return size > 1;
    }

    private static boolean gone(long[] departed, int r) {
        return (departed[r / 64] & (1L << (r % 64))) != 0;
    }

    /**
     * Fails a wait that can never complete: reads the bitmap, and if {@link #hopeless}, re-reads
     * the wait's condition and throws if it is still false.
     *
     * @param partner a rank, {@link #ANY} or {@link #NONE}
     * @param satisfied the wait's condition, read again
     * @throws io.softcmi.smi.SmiException {@link SmiError#OTHER} if the wait can never complete
     */
    void check(int partner, BooleanSupplier satisfied) {
        if (partner == NONE || partner == rank) {
            return;
        }
        if (hopeless(read(), partner, rank, size) && !satisfied.getAsBoolean()) {
            throw Errors.fail(SmiError.OTHER, (partner == ANY ? "every other process" : "process " + partner)
                + " entered SMI_Finalize while this process waits for it: the wait can never complete");
        }
    }
}
