package io.softcmi.systemtests;

import io.softcmi.cmi.CmiAccessException;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.RemoteSegmentHandle;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Set;

/**
 * A worker process's share of the chaos test ({@link FailureChaosSystemTest}): imports several
 * write-through segments (one per home node) and, for a bounded time, writes an increasing
 * sequence number into its own slot of each, reads it, and increments each segment's counter
 * (word 0) with {@code atmCas} — while the test injects faults. It counts what the homes
 * acknowledged and what is in doubt (a CAS that threw TRANSIENT may or may not have happened),
 * so the test can check that every acknowledged write is at its home and every counter is
 * exact within the doubtful ones.
 *
 * <p>Reply: {@code CHAOS} then, per segment, {@code lastAcked:lastTried:casAcked:casDoubtful},
 * then the number of access errors seen.
 */
final class ChaosLoad {
    private ChaosLoad() {
    }

    /**
     * @param ctx the worker's context (its command thread, enabled)
     * @param handles remote segment handles, hex, comma-separated
     * @param tokens their tokens, hex, comma-separated
     * @param slot this worker's slot (word {@code 1 + slot} of each segment)
     * @param millis how long to run
     * @return the reply line
     */
    static String run(CmiContext ctx, String handles, String tokens, int slot, long millis) {
        String[] h = handles.split(",");
        String[] t = tokens.split(",");
        HexFormat hex = HexFormat.of();
        ctx.ctlReconfTimeout(Duration.ofSeconds(1));
        CmiMapping[] maps = new CmiMapping[h.length];
        for (int i = 0; i < h.length; i++) {
            CmiSegment p = ctx.segImp(RemoteSegmentHandle.fromBytes(hex.parseHex(h[i])));
            ctx.segSetToken(p, CmiToken.fromBytes(hex.parseHex(t[i])));
            maps[i] = ctx.segAt(p, Set.of());
        }
        long[] lastAcked = new long[h.length];
        long[] lastTried = new long[h.length];
        long[] casAcked = new long[h.length];
        long[] casDoubtful = new long[h.length];
        long errors = 0;
        long end = System.nanoTime() + millis * 1_000_000;
        long seq = 0;
        while (System.nanoTime() < end) {
            seq++;
            for (int i = 0; i < maps.length; i++) {
                long off = 8L * (1 + slot);
                try {
                    lastTried[i] = seq;
                    maps[i].putLong(off, seq);
                    lastAcked[i] = seq;
                    if (maps[i].getLong(off) < seq) {
                        return "ERROR read an older value than the acknowledged write at segment " + i;
                    }
                } catch (CmiAccessException e) {
                    errors++;
                }
                try {
                    long v = maps[i].getLong(0);
                    try {
                        if (ctx.atmCas(maps[i], 0, v, v + 1) == v) {
                            casAcked[i]++;
                        }
                    } catch (CmiAccessException e) {
                        casDoubtful[i]++; // applied or not: the reply is what was lost
                        errors++;
                    }
                } catch (CmiAccessException e) {
                    errors++;
                }
            }
        }
        StringBuilder sb = new StringBuilder("CHAOS");
        for (int i = 0; i < maps.length; i++) {
            sb.append(' ').append(lastAcked[i]).append(':').append(lastTried[i]).append(':').append(casAcked[i]).append(':')
                .append(casDoubtful[i]);
        }
        return sb.append(' ').append(errors).toString();
    }
}
