package io.softcmi.cmi.internal.cache;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A home in memory for cache tests: the segment's bytes and a write log numbered by epoch, as
 * the node's CoherenceDirectory keeps it. Each {@link #transport} is one cache's connection.
 */
final class FakeHome {
    final byte[] memory;
    private long epoch;
    private final List<long[]> log = new ArrayList<>();
    int fills;
    int diffs;
    int acquires;
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

    synchronized void localWrite(long offset, byte value) {
        memory[(int) offset] = value;
        log.add(new long[] {++epoch, 0, offset, offset + 1});
    }

    LineTransport transport(long cacheId) {
        return new LineTransport() {
            @Override
            public Pending fill(long offset, byte[] dst, int dstOffset, int length) {
                synchronized (FakeHome.this) {
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
            public Pending acquire(long sinceEpoch, byte[] dst) {
                synchronized (FakeHome.this) {
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
            }
        };
    }
}
