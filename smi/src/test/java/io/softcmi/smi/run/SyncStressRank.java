package io.softcmi.smi.run;

import io.softcmi.smi.ProgressCounter;
import io.softcmi.smi.RegionType;
import io.softcmi.smi.Smi;
import io.softcmi.smi.SmiRegion;
import java.util.Set;

/**
 * A test program that repeats one of SMI's synchronization patterns many times and counts the
 * rounds whose data break the pattern's promise. Every rank prints
 * {@code stress MODE: rank R: bad B of N} and finalizes (a failure aborts the job with code 1).
 * <ul>
 * <li>{@code pc}: rank 0 writes a block of a region homed on the last rank (a cached import for
 *     it on another node), then increments its progress counter; the last rank waits for the
 *     counter, reads the block (its own memory) and counts rounds with a word of an older round;
 *     then it increments its own counter, which rank 0 waits for before the next round.</li>
 * </ul>
 */
public final class SyncStressRank {
    private static final int BLOCK_WORDS = 1024;

    private SyncStressRank() {
    }

    /**
     * @param args the mode ({@code pc}) and the number of rounds
     */
    public static void main(String[] args) {
        String mode = args[0];
        int rounds = Integer.parseInt(args[1]);
        Smi smi = Smi.init(args);
        long bad;
        try {
            bad = switch (mode) {
                case "pc" -> pc(smi, rounds);
                default -> throw new IllegalArgumentException("unknown mode " + mode);
            };
        } catch (RuntimeException | Error e) {
            System.err.println("rank " + smi.procRank() + " failed: " + e);
            e.printStackTrace();
            smi.abort(1);
            return;
        }
        System.out.println("stress " + mode + ": rank " + smi.procRank() + ": bad " + bad + " of " + rounds);
        System.out.flush();
        smi.close();
    }

    private static SmiRegion region(Smi smi, long bytes, int owner) {
        long size = Math.max(smi.pageSize(), (bytes + smi.pageSize() - 1) / smi.pageSize() * smi.pageSize());
        return smi.createShreg(RegionType.UNDIVIDED, Smi.initReginfo(size, owner), Set.of());
    }

    private static long pc(Smi smi, int rounds) {
        int me = smi.procRank();
        int last = smi.procSize() - 1;
        SmiRegion block = region(smi, 8L * BLOCK_WORDS, last);
        ProgressCounter pc = smi.initPc();
        long bad = 0;
        for (int r = 1; r <= rounds; r++) {
            if (me == 0) {
                pc.waitIndividual(last, r - 1);
                for (int w = 0; w < BLOCK_WORDS; w++) {
                    block.putLong(8L * w, r);
                }
                pc.increment(1);
            } else if (me == last) {
                pc.waitIndividual(0, r);
                for (int w = 0; w < BLOCK_WORDS; w++) {
                    if (block.getLong(8L * w) != r) {
                        bad++;
                        break;
                    }
                }
                pc.increment(1);
            }
        }
        smi.barrier();
        block.free();
        return bad;
    }
}
