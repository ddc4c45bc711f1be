package io.softcmi.smi.run;

import io.softcmi.smi.MemcpyHandle;
import io.softcmi.smi.RegionType;
import io.softcmi.smi.Smi;
import io.softcmi.smi.SmiError;
import io.softcmi.smi.SmiException;
import io.softcmi.smi.SmiRegion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Set;

/**
 * A test program for {@code SMI_ERR_TRANSFER}: rank 1 makes a {@code LOCAL} region, rank 0
 * connects to it as {@code REMOTE} and copies from it once; then rank 1 frees it (its segment
 * goes away at its home) and rank 0 copies again, synchronously ({@code memcpy}), asynchronously
 * ({@code imemcpy} + {@code memwait}), and checks ({@code checkTransfer}): each must report
 * {@code TRANSFER}; so must {@code memtest} of such a copy, while {@code memwaitAll} and
 * {@code memtestAll} report {@code OTHER} with {@code TRANSFER} as its status. Prints
 * {@code transfer: OK} at the end.
 */
public final class TransferFailure {
    private TransferFailure() {
    }

    /** @param args unused */
    public static void main(String[] args) {
        try (Smi smi = Smi.init(args)) {
            int me = smi.procRank();
            long size = 1 << 16;
            SmiRegion mine = me == 1 ? smi.createShreg(RegionType.LOCAL, Smi.initReginfo(size, 1), Set.of()) : null;
            byte[] id = new byte[8];
            if (me == 1) {
                smi.send(ByteBuffer.allocate(8).putLong(mine.sgmtId()).array(), 8, 0);
            } else {
                smi.recv(id, 8, 1);
            }
            SmiRegion far = me == 0 ? smi.createShreg(RegionType.REMOTE,
                Smi.initReginfo(0, 1).sgmtId(ByteBuffer.wrap(id).getLong()), Set.of()) : null;
            MemorySegment buf = Arena.ofAuto().allocate(size);
            if (me == 0) {
                smi.memcpy(buf, far.at(0), size, Set.of()); // works while the region lives
            }
            smi.barrier();
            if (me == 1) {
                mine.free();
            }
            smi.barrier();
            if (me == 0) {
                expectTransfer("memcpy", () -> smi.memcpy(buf, far.at(0), size, Set.of()));
                MemcpyHandle h = smi.imemcpy(buf, far.at(0), size, Set.of());
                expectTransfer("memwait", () -> smi.memwait(h));
                expectTransfer("checkTransfer", () -> smi.checkTransfer(Set.of()));
                MemcpyHandle g = smi.imemcpy(buf, far.at(0), size, Set.of());
                expectOther("memwaitAll", () -> smi.memwaitAll(g));
                if (smi.memtest(g) != SmiError.TRANSFER) {
                    throw new IllegalStateException("memtest gave " + smi.memtest(g) + ", not TRANSFER");
                }
                System.out.println("transfer: memtest gave TRANSFER");
                expectOther("memtestAll", () -> smi.memtestAll(g));
                System.out.println("transfer: OK");
            }
            smi.barrier();
        }
    }

    /** The *All calls: OTHER, with TRANSFER as the copy's status. */
    private static void expectOther(String what, Runnable r) {
        try {
            r.run();
        } catch (SmiException e) {
            if (e.error() != SmiError.OTHER || !e.statuses().equals(java.util.List.of(SmiError.TRANSFER))) {
                throw new IllegalStateException(what + " gave " + e.error() + " " + e.statuses() + ", not OTHER [TRANSFER]", e);
            }
            System.out.println("transfer: " + what + " gave OTHER [TRANSFER]");
            return;
        }
        throw new IllegalStateException(what + " succeeded on a freed region");
    }

    private static void expectTransfer(String what, Runnable r) {
        try {
            r.run();
        } catch (SmiException e) {
            if (e.error() != SmiError.TRANSFER) {
                throw new IllegalStateException(what + " gave " + e.error() + ", not TRANSFER", e);
            }
            System.out.println("transfer: " + what + " gave TRANSFER (" + e.getMessage() + ")");
            return;
        }
        throw new IllegalStateException(what + " succeeded on a freed region");
    }
}
