package io.softcmi.systemtests;

import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiAccessException;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.CmiToken;
import io.softcmi.cmi.CmiVersion;
import io.softcmi.cmi.RemoteSegmentHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A worker process's share of the data-path scale test ({@link DataPathScaleTest}): CONTEXTS
 * contexts of this process, each on a thread of its own, import one segment and for MILLIS mix
 * remote reads, writes and {@code atmCas} increments on it. Word 0 is the shared counter; words
 * 1..{@value #SLOTS} hold values only {@link #encode} makes, so a read that returns anything
 * else (a torn or invented value) is counted as bad. Every loop is bounded in time.
 */
final class MixedLoad {
    /** Data words after the counter. */
    static final int SLOTS = 63;

    private MixedLoad() {
    }

    /** A value a writer stores: context, sequence, and a check byte over both. */
    static long encode(int context, long seq) {
        long body = (long) (context & 0xFF_FFFF) << 32 | seq & 0xFFFF_FFFFL;
        return body << 8 | check(body);
    }

    static boolean valid(long v) {
        return v == 0 || (v & 0xFF) == check(v >>> 8);
    }

    private static long check(long body) {
        return (body * 0x9E3779B97F4A7C15L) >>> 56;
    }

    /** @return the reply line */
    static String run(byte[] handle, byte[] token, int contexts, long millis) {
        AtomicLong increments = new AtomicLong();
        AtomicLong reads = new AtomicLong();
        AtomicLong writes = new AtomicLong();
        AtomicLong bad = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < contexts; i++) {
            int id = (int) (ProcessHandle.current().pid() % 1000) * 100 + i;
            threads.add(Thread.ofPlatform().start(() -> {
                CmiContext c;
                try {
                    c = Cmi.init(new CmiVersion(1, 1));
                } catch (RuntimeException e) {
                    errors.incrementAndGet();
                    System.err.println("mixed load: context " + id + " did not start: " + e);
                    return;
                }
                try {
                    CmiSegment p = c.segImp(RemoteSegmentHandle.fromBytes(handle));
                    c.segSetToken(p, CmiToken.fromBytes(token));
                    c.enable(true);
                    CmiMapping m = c.segAt(p, Set.of());
                    // Each context runs for MILLIS after its own set-up (slow on a loaded machine).
                    long end = System.nanoTime() + millis * 1_000_000;
                    SplittableRandom r = new SplittableRandom(id);
                    long seq = 0;
                    while (System.nanoTime() < end) {
                        int k = 1 + r.nextInt(SLOTS);
                        int what = r.nextInt(10);
                        if (what < 4) {
                            if (!valid(m.getLong(k * 8L))) {
                                bad.incrementAndGet();
                            }
                            reads.incrementAndGet();
                        } else if (what < 7) {
                            m.putLong(k * 8L, encode(id, ++seq));
                            writes.incrementAndGet();
                        } else {
                            for (int tries = 0; tries < 10_000 && System.nanoTime() < end + 5_000_000_000L; tries++) {
                                long v = m.getLong(0);
                                if (c.atmCas(m, 0, v, v + 1) == v) {
                                    increments.incrementAndGet();
                                    break;
                                }
                            }
                        }
                    }
                } catch (CmiAccessException e) {
                    errors.incrementAndGet();
                } catch (RuntimeException e) {
                    errors.incrementAndGet();
                    System.err.println("mixed load: context " + id + " failed: " + e);
                } finally {
                    c.fini();
                }
            }));
        }
        for (Thread t : threads) {
            try {
                t.join(millis + 60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return "MIXED " + increments.get() + " " + reads.get() + " " + writes.get() + " " + bad.get() + " " + errors.get();
    }
}
