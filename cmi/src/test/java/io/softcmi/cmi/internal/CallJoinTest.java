package io.softcmi.cmi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.wire.DataProtocol;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * A thread that waits for another thread's call (a cache miss that joined a fill in flight) is
 * woken when the call is done, as its caller is, instead of sleeping out a park's timeout
 * ({@link RemoteCall#join}, {@link RemoteConnection#wake}).
 */
class CallJoinTest {
    private static final long SECOND = 1_000_000_000L;

    /** Waits, bounded, until {@code t} parks. */
    private static void awaitParked(Thread t) throws InterruptedException {
        long end = System.nanoTime() + 10 * SECOND;
        while (t.getState() != Thread.State.WAITING && t.getState() != Thread.State.TIMED_WAITING
                && System.nanoTime() < end) {
            Thread.sleep(1);
        }
    }

    @Test
    void completingACallUnparksTheThreadsThatJoinedIt() throws Exception {
        RemoteCall c = new RemoteCall(); // this thread is its caller
        AtomicLong seen = new AtomicLong(-1);
        Thread joiner = Thread.ofPlatform().name("joiner").start(() -> {
            c.join();
            while (!c.done) {
                LockSupport.park(c); // no timeout: only an unpark ends it
            }
            seen.set(c.value);
        });
        try {
            awaitParked(joiner);
            c.complete(0, 42);
            joiner.join(10_000);
            assertFalse(joiner.isAlive(), "the joined thread was not woken when the call completed");
            assertEquals(42, seen.get());
        } finally {
            LockSupport.unpark(joiner);
            joiner.join(10_000);
        }
    }

    @Test
    void theCallerJoiningItsOwnCallRegistersNothing() {
        RemoteCall c = new RemoteCall();
        c.join();
        assertFalse(c.joinedBy(Thread.currentThread()));
    }

    @Test
    void aThreadAwaitingAnotherThreadsCallJoinsItAndBothGetTheReply() throws Exception {
        try (FakeHome home = new FakeHome(FakeHome.Mode.ANSWER); Arena arena = Arena.ofShared()) {
            RemoteConnection conn = RemoteConnection.open(home.address(), new byte[8], null, 5 * SECOND);
            try {
                home.answerAfter(Duration.ofMillis(300)); // the reply comes after the joiner waits
                MemorySegment dst = arena.allocate(16);
                long deadline = System.nanoTime() + 30 * SECOND;
                RemoteCall[] call = new RemoteCall[1];
                AtomicInteger statuses = new AtomicInteger();
                Thread caller = Thread.ofPlatform().name("caller").start(() -> {
                    call[0] = conn.start(DataProtocol.OP_GET, 1, FakeHome.token(), 100, 16, 0, null, dst, 16, false, deadline);
                    synchronized (call) {
                        call.notifyAll();
                    }
                    conn.await(call[0], deadline);
                    statuses.addAndGet(call[0].status == 0 ? 1 : 100);
                });
                synchronized (call) {
                    long end = System.nanoTime() + 10 * SECOND;
                    while (call[0] == null && System.nanoTime() < end) {
                        call.wait(100);
                    }
                }
                RemoteCall c = call[0];
                Thread joiner = Thread.ofPlatform().name("joiner").start(() -> {
                    conn.await(c, deadline);
                    statuses.addAndGet(c.status == 0 ? 1 : 100);
                });
                long end = System.nanoTime() + 10 * SECOND;
                while (!c.joinedBy(joiner) && !c.done && System.nanoTime() < end) {
                    Thread.onSpinWait();
                }
                assertTrue(c.joinedBy(joiner), "the waiting thread did not join the call");
                caller.join(30_000);
                joiner.join(30_000);
                assertEquals(2, statuses.get());
                for (int i = 0; i < 16; i++) {
                    assertEquals((byte) (100 + i), dst.get(ValueLayout.JAVA_BYTE, i));
                }
            } finally {
                conn.close();
            }
        }
    }
}
