package io.softcmi.smi.run;

import io.softcmi.smi.ProgressCounter;
import io.softcmi.smi.RegionType;
import io.softcmi.smi.Smi;
import io.softcmi.smi.SmiMutex;
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
 * <li>{@code mutex}: every rank adds one to a counter in a region homed on rank 0, under a spread
 *     mutex and under one homed on the last rank (a plain read, then a write: exact only if the
 *     lock excludes the others), every third time with {@code trylock} first; inside, it writes
 *     its rank into an owner word and counts the times it reads another's back. Rank 0 counts a
 *     wrong total as bad.</li>
 * <li>{@code barrier}: in round r every rank writes r into its word of one of two rows (r mod 2) of
 *     a region homed on rank 0, meets the others at a barrier and counts the words of the row
 *     that are not r.</li>
 * <li>{@code signal}: in round r every other rank writes r into its word of a region homed on rank
 *     0 and signals rank 0, which takes {@code size - 1} signals from any rank and counts the round
 *     bad if a sender's word is not r; then it signals every rank ({@code BCAST}), which each
 *     waits for before the next round.</li>
 * <li>{@code signalThreads} (2 ranks): rank 1 signals rank 0 from two threads at once, its main
 *     thread and a signal callback (started by a signal of rank 0), one signal each per round,
 *     the two released together by a local barrier; then both ranks meet at a barrier, rank 1
 *     finalizes, and rank 0 takes signals of rank 1 until the wait fails with {@code OTHER} (none
 *     left). Rank 0 counts each of the {@code 2 * rounds} signals it did not get as bad.</li>
 * <li>{@code sendThreads} (2 ranks): rank 1 sends {@code rounds} messages ({@code SMI_Send}) to
 *     rank 0 from each of two threads at once, its main thread and a signal callback, each message
 *     its thread's tag, its number and their complement; then it finalizes. Rank 0 receives until
 *     it has {@code 2 * rounds} or the receive fails with {@code OTHER} (none left), and counts as
 *     bad every message missing, torn, or out of its thread's order.</li>
 * </ul>
 */
public final class SyncStressRank {
    private static final int BLOCK_WORDS = 1024;

    private SyncStressRank() {
    }

    /**
     * @param args the mode ({@code pc}, {@code mutex}, {@code barrier}, {@code signal},
     *     {@code signalThreads}, {@code sendThreads}) and the
     *     number of rounds
     */
    public static void main(String[] args) {
        String mode = args[0];
        int rounds = Integer.parseInt(args[1]);
        Smi smi = Smi.init(args);
        long bad;
        try {
            bad = switch (mode) {
                case "pc" -> pc(smi, rounds);
                case "mutex" -> mutex(smi, rounds);
                case "barrier" -> barrier(smi, rounds);
                case "signal" -> signal(smi, rounds);
                case "signalThreads" -> signalThreads(smi, rounds);
                case "sendThreads" -> sendThreads(smi, rounds);
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

    private static long mutex(Smi smi, int rounds) {
        int me = smi.procRank();
        int n = smi.procSize();
        SmiRegion shared = region(smi, 64, 0);
        long bad = 0;
        for (SmiMutex m : new SmiMutex[] {smi.mutexInit(), smi.mutexInitWithLocality(n - 1)}) {
            if (me == 0) {
                shared.putLong(0, 0);
            }
            smi.barrier();
            for (int i = 0; i < rounds; i++) {
                if (i % 3 != 0 || !m.trylock()) {
                    m.lock();
                }
                shared.putLong(8, me);
                shared.putLong(0, shared.getLong(0) + 1);
                if (shared.getLong(8) != me) {
                    bad++;
                }
                m.unlock();
            }
            smi.barrier();
            if (me == 0 && shared.getLong(0) != (long) n * rounds) {
                System.out.println("stress mutex: mutex " + m.id() + " counted " + shared.getLong(0) + " of " + (long) n * rounds);
                bad++;
            }
            smi.barrier();
            m.destroy();
        }
        shared.free();
        return bad;
    }

    private static long barrier(Smi smi, int rounds) {
        int me = smi.procRank();
        int n = smi.procSize();
        SmiRegion rows = region(smi, 16L * n, 0);
        long bad = 0;
        for (int r = 1; r <= rounds; r++) {
            long row = 8L * n * (r & 1);
            rows.putLong(row + 8L * me, r);
            smi.barrier();
            for (int q = 0; q < n; q++) {
                if (rows.getLong(row + 8L * q) != r) {
                    bad++;
                    break;
                }
            }
        }
        smi.barrier();
        rows.free();
        return bad;
    }

    private static long signal(Smi smi, int rounds) {
        int me = smi.procRank();
        int n = smi.procSize();
        SmiRegion words = region(smi, 8L * n, 0);
        long bad = 0;
        for (int r = 1; r <= rounds; r++) {
            if (me == 0) {
                for (int k = 1; k < n; k++) {
                    smi.signalWait(Smi.SIGNAL_ANY);
                }
                for (int q = 1; q < n; q++) {
                    if (words.getLong(8L * q) != r) {
                        bad++;
                        break;
                    }
                }
                smi.signalSend(Smi.SIGNAL_BCAST);
            } else {
                words.putLong(8L * me, r);
                smi.signalSend(0);
                smi.signalWait(0);
            }
        }
        smi.barrier();
        words.free();
        return bad;
    }

    private static long signalThreads(Smi smi, int rounds) {
        if (smi.procRank() == 1) {
            java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(2);
            Runnable sender = () -> {
                for (int r = 0; r < rounds; r++) {
                    try {
                        together.await(60, java.util.concurrent.TimeUnit.SECONDS);
                    } catch (Exception e) {
                        throw new IllegalStateException("the other sender did not come", e);
                    }
                    smi.signalSend(0);
                }
            };
            io.softcmi.smi.SignalHandle h = smi.signalSetCallback(0, sender);
            sender.run();
            smi.signalJoinCallback(h);
            smi.barrier();
            return 0;
        }
        if (smi.procRank() != 0) {
            smi.barrier();
            return 0;
        }
        smi.signalSend(1);
        smi.barrier();
        long got = 0;
        while (got < 4L * rounds) {
            try {
                smi.signalWait(1);
                got++;
            } catch (io.softcmi.smi.SmiException e) {
                // Rank 1 finalized and none of its signals is left.
                break;
            }
        }
        return Math.abs(2L * rounds - got);
    }

    private static long sendThreads(Smi smi, int rounds) {
        if (smi.procRank() == 1) {
            java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(2);
            java.util.function.IntConsumer sender = tag -> {
                byte[] msg = new byte[16];
                java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(msg);
                for (int r = 0; r < rounds; r++) {
                    if (r % 100 == 0) {
                        try {
                            together.await(60, java.util.concurrent.TimeUnit.SECONDS);
                        } catch (Exception e) {
                            throw new IllegalStateException("the other sender did not come", e);
                        }
                    }
                    long word = ((long) tag << 32) | r;
                    b.putLong(0, word).putLong(8, ~word);
                    smi.send(msg, msg.length, 0);
                }
            };
            io.softcmi.smi.SignalHandle h = smi.signalSetCallback(0, () -> sender.accept(2));
            sender.accept(1);
            smi.signalJoinCallback(h);
            return 0;
        }
        if (smi.procRank() != 0) {
            return 0;
        }
        smi.signalSend(1);
        long[] next = new long[3];
        long bad = 0;
        long got = 0;
        byte[] msg = new byte[16];
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(msg);
        while (got < 2L * rounds) {
            try {
                smi.recv(msg, msg.length, 1);
            } catch (io.softcmi.smi.SmiException e) {
                break; // rank 1 finalized and none of its messages is left
            }
            got++;
            long word = b.getLong(0);
            int tag = (int) (word >>> 32);
            if (b.getLong(8) != ~word || tag < 1 || tag > 2 || (word & 0xFFFF_FFFFL) != next[tag]) {
                bad++;
                continue;
            }
            next[tag]++;
        }
        return bad + (2L * rounds - got);
    }
}
