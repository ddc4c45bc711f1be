package io.softcmi.cmi.internal.cache;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A home in memory for cache tests: the segment's bytes and a write log numbered by epoch, as
 * the node's CoherenceDirectory keeps it. Each {@link #transport} is one cache's view of the
 * home's one connection: requests are answered when they are written, and every write is
 * recorded ({@link #writes}). A queued {@code ACQUIRE} ({@link LineTransport#acquireLater})
 * is written in front of the next request of any transport, in the same write, or alone when
 * it is first awaited, as {@code RemoteConnection} does.
 */
final class FakeHome {
    final byte[] memory;
    private long epoch;
    private final List<long[]> log = new ArrayList<>();
    int fills;
    int diffs;
    int acquires;
    /** The cache ids that sent FORGET, in order. Guarded by this. */
    final List<Long> forgets = new ArrayList<>();
    /** When set, every request fails with this status. */
    volatile int failWith;
    /** When set, every DIFF fails with this status. */
    volatile int failDiffsWith;
    /** When set, a DIFF counts {@link #diffEntered} down and waits for this before it is sent. */
    volatile CountDownLatch sendGate;
    final CountDownLatch diffEntered = new CountDownLatch(1);
    /** When set, a FILL (answered at once) has its reply withheld until this opens. */
    volatile CountDownLatch fillAckGate;
    /** When set, a DIFF's acknowledgement is withheld until this opens. */
    volatile CountDownLatch ackGate;
    /** When set, an ACQUIRE (answered at once) has its reply withheld until this opens. */
    volatile CountDownLatch acquireAckGate;
    /** The requests of each write on the connection, in order, e.g. {@code "ACQUIRE FILL"}. Guarded by this. */
    private final List<String> writes = new ArrayList<>();
    /** ACQUIREs queued and not written yet. Guarded by this. */
    private final List<Queued> queue = new ArrayList<>();

    FakeHome(int size) {
        memory = new byte[size];
    }

    record Done(int status, long value, int received) implements LineTransport.Pending {
        @Override public int await() { return status; }
        @Override public boolean done() { return true; }
    }

    /** An acknowledgement that comes when its gate opens. */
    record Held(CountDownLatch gate) implements LineTransport.Pending {
        @Override public int await() { awaitGate(gate); return 0; }
        @Override public boolean done() { return gate.getCount() == 0; }
        @Override public long value() { return 0; }
        @Override public int received() { return 0; }
    }

    /** A fill answered at the home at once whose reply arrives when its gate opens. */
    record HeldFill(CountDownLatch gate, long value) implements LineTransport.Pending {
        @Override public int await() { awaitGate(gate); return 0; }
        @Override public boolean done() { return gate.getCount() == 0; }
        @Override public int received() { return 0; }
    }

    /** An acquire answered at the home at once whose reply arrives when its gate opens. */
    record HeldAcquire(CountDownLatch gate, long value, int received) implements LineTransport.Pending {
        @Override public int await() { awaitGate(gate); return 0; }
        @Override public boolean done() { return gate.getCount() == 0; }
    }

    private static void awaitGate(CountDownLatch gate) {
        try {
            if (!gate.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("test gate never opened");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** @return the writes so far, each the ops it carried */
    synchronized List<String> writes() {
        return List.copyOf(writes);
    }

    /** An ACQUIRE queued on the connection: answered when a write carries it. */
    final class Queued implements LineTransport.Pending {
        private final long sinceEpoch;
        private final byte[] dst;
        private final long cacheId;
        /** The home's answer, once written. Guarded by the home. */
        private LineTransport.Pending answer;

        Queued(long sinceEpoch, byte[] dst, long cacheId) {
            this.sinceEpoch = sinceEpoch;
            this.dst = dst;
            this.cacheId = cacheId;
        }

        private LineTransport.Pending answer() {
            synchronized (FakeHome.this) {
                if (answer == null) {
                    writes.add(written("")); // awaited before anything carried it: written alone
                }
                return answer;
            }
        }

        @Override public int await() { return answer().await(); }
        @Override public long value() { return answer().value(); }
        @Override public int received() { return answer().received(); }
        @Override public boolean done() { synchronized (FakeHome.this) { return answer != null && answer.done(); } }
    }

    /** Answers the queued ACQUIREs (a write carries them) and names the write's ops, {@code op} last. Holds the lock. */
    private String written(String op) {
        StringBuilder ops = new StringBuilder();
        for (Queued q : queue) {
            q.answer = answerAcquire(q.sinceEpoch, q.dst, q.cacheId);
            ops.append("ACQUIRE ");
        }
        queue.clear();
        return ops.append(op).toString().trim();
    }

    /** The home's answer to an ACQUIRE written now. Holds the lock. */
    private LineTransport.Pending answerAcquire(long sinceEpoch, byte[] dst, long cacheId) {
        acquires++;
        if (failWith != 0) {
            return new Done(failWith, 0, 0);
        }
        ByteBuffer b = ByteBuffer.wrap(dst).order(ByteOrder.LITTLE_ENDIAN);
        for (long[] e : log) {
            if (e[0] > sinceEpoch && e[1] != cacheId && b.remaining() >= 16) {
                b.putLong(e[2]).putLong(e[3]);
            }
        }
        CountDownLatch gate = acquireAckGate;
        return gate == null ? new Done(0, epoch, b.position()) : new HeldAcquire(gate, epoch, b.position());
    }

    synchronized void localWrite(long offset, byte value) {
        memory[(int) offset] = value;
        log.add(new long[] {++epoch, 0, offset, offset + 1});
    }

    LineTransport transport(long cacheId) {
        return new LineTransport() {
            @Override
            public Pending fill(long offset, byte[] dst, int dstOffset, int length) {
                synchronized (FakeHome.this) {
                    writes.add(written("FILL"));
                    fills++;
                    if (failWith != 0) {
                        return new Done(failWith, 0, 0);
                    }
                    System.arraycopy(memory, (int) offset, dst, dstOffset, length);
                    CountDownLatch gate = fillAckGate;
                    return gate == null ? new Done(0, epoch << 1 | 1, 0) : new HeldFill(gate, epoch << 1 | 1);
                }
            }

            @Override
            public Pending diff(java.lang.foreign.MemorySegment runs) {
                CountDownLatch gate = sendGate;
                if (gate != null) {
                    diffEntered.countDown();
                    awaitGate(gate);
                }
                synchronized (FakeHome.this) {
                    writes.add(written("DIFF"));
                    diffs++;
                    if (failWith != 0 || failDiffsWith != 0) {
                        return new Done(failWith != 0 ? failWith : failDiffsWith, 0, 0);
                    }
                    ByteBuffer b = runs.asByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
                    while (b.hasRemaining()) {
                        long off = b.getLong();
                        int len = b.getInt();
                        b.get(memory, (int) off, len);
                        log.add(new long[] {++epoch, cacheId, off, off + len});
                    }
                    CountDownLatch ack = ackGate;
                    return ack == null ? new Done(0, 0, 0) : new Held(ack);
                }
            }

            @Override
            public void forget() {
                synchronized (FakeHome.this) {
                    writes.add(written("FORGET"));
                    forgets.add(cacheId);
                }
            }

            @Override
            public Pending acquire(long sinceEpoch, byte[] dst) {
                synchronized (FakeHome.this) {
                    writes.add(written("ACQUIRE"));
                    return answerAcquire(sinceEpoch, dst, cacheId);
                }
            }

            @Override
            public Pending acquireLater(long sinceEpoch, byte[] dst) {
                synchronized (FakeHome.this) {
                    Queued q = new Queued(sinceEpoch, dst, cacheId);
                    queue.add(q);
                    return q;
                }
            }
        };
    }
}
