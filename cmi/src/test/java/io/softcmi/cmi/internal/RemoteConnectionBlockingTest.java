package io.softcmi.cmi.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.softcmi.wire.DataProtocol;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A plain data connection waits in blocking {@code read}/{@code write} calls
 * ({@link RemoteConnection}, {@link BlockingWatchdog}): replies still come, a home that stops
 * answering or reading still fails the call at its deadline, a writer whose home cannot get rid
 * of its replies has them read for it, and an interrupt set before a call does not break the
 * connection; polls read the socket in non-blocking mode, and a wait that blocks does so in
 * blocking mode. Against a {@link FakeHome}; bounded by preemptive timeouts.
 */
class RemoteConnectionBlockingTest {
    private static final long SECOND = 1_000_000_000L;
    private static final Duration BOUND = Duration.ofSeconds(20);

    private static RemoteConnection open(FakeHome home) throws Exception {
        return RemoteConnection.open(home.address(), new byte[8], null, 5 * SECOND);
    }

    @Test
    void shouldAnswerLoadsOnABlockingPlainConnection() throws Exception {
        try (FakeHome home = new FakeHome(FakeHome.Mode.ANSWER); RemoteConnection c = open(home)) {
            assertTrue(c.blocking(), "a plain connection blocks in read");
            assertTrue(BlockingWatchdog.watching(c));
            assertTimeoutPreemptively(BOUND, () -> {
                for (int i = 0; i < 1000; i++) {
                    RemoteCall r = c.load(1, FakeHome.token(), 0, 8, System.nanoTime() + 5 * SECOND);
                    assertEquals(0, r.status);
                    assertEquals(FakeHome.VALUE, r.value);
                }
            });
            assertFalse(c.broken());
        }
    }

    @Test
    void shouldFailACallAtItsDeadlineWhenTheHomeStopsAnswering() throws Exception {
        try (FakeHome home = new FakeHome(FakeHome.Mode.SILENT); RemoteConnection c = open(home)) {
            long start = System.nanoTime();
            RemoteCall r = assertTimeoutPreemptively(BOUND,
                () -> c.load(1, FakeHome.token(), 0, 8, System.nanoTime() + SECOND / 5));
            assertEquals(RemoteConnection.STATUS_TIMEOUT, r.status, "a blocked read ends at the deadline");
            assertTrue(System.nanoTime() - start >= SECOND / 5, "not before the deadline");
            assertTrue(c.broken());
            assertFalse(BlockingWatchdog.watching(c), "a failed connection is no longer watched");
        }
    }

    @Test
    void shouldFailAStoreAtItsDeadlineWhenTheHomeStopsReading() throws Exception {
        try (FakeHome home = new FakeHome(FakeHome.Mode.DEAF); RemoteConnection c = open(home); Arena arena = Arena.ofShared()) {
            MemorySegment src = arena.allocate(64L << 20); // more than the socket buffers hold: the write blocks
            int status = assertTimeoutPreemptively(BOUND,
                () -> c.put(1, FakeHome.token(), 0, src, src.byteSize(), System.nanoTime() + SECOND / 2));
            assertEquals(RemoteConnection.STATUS_TIMEOUT, status, "a blocked write ends at the deadline");
            assertTrue(c.broken());
        }
    }

    @Test
    void shouldKeepTheFirstFailuresStatusForCallsFailedLater() throws Exception {
        // The watchdog fails a connection at a deadline (TIMEOUT) and closes its socket; a writer
        // blocked on that socket then fails it again with an I/O error: its call reports the deadline.
        try (FakeHome home = new FakeHome(FakeHome.Mode.SILENT); RemoteConnection c = open(home)) {
            c.fail(RemoteConnection.STATUS_TIMEOUT);
            RemoteCall r = assertTimeoutPreemptively(BOUND,
                () -> c.load(1, FakeHome.token(), 0, 8, System.nanoTime() + 5 * SECOND));
            assertTrue(r.done);
            assertEquals(RemoteConnection.STATUS_TIMEOUT, r.status);
        }
    }

    @Test
    void shouldReadRepliesForAWriterBlockedBehindThem() throws Exception {
        int gets = 8;
        int size = DataProtocol.MAX_PAYLOAD;
        try (FakeHome home = new FakeHome(FakeHome.Mode.ANSWER); RemoteConnection c = open(home); Arena arena = Arena.ofShared()) {
            long deadline = System.nanoTime() + 15 * SECOND;
            MemorySegment[] dst = new MemorySegment[gets];
            RemoteCall[] calls = new RemoteCall[gets];
            MemorySegment src = arena.allocate(4L * size);
            assertTimeoutPreemptively(BOUND, () -> {
                // 8 MiB of replies nobody waits for yet: the home blocks writing them and stops
                // reading, so the store behind them blocks until someone reads the replies.
                for (int i = 0; i < gets; i++) {
                    dst[i] = arena.allocate(size);
                    calls[i] = c.start(DataProtocol.OP_GET, 1, FakeHome.token(), (long) i * size, size, 0, null, dst[i], size,
                        false, deadline);
                }
                assertEquals(0, c.put(1, FakeHome.token(), 0, src, src.byteSize(), deadline));
                for (RemoteCall r : calls) {
                    c.await(r, deadline);
                    assertEquals(0, r.status);
                }
            });
            for (int i = 0; i < gets; i++) {
                byte[] expected = new byte[] {(byte) (i * size), (byte) (i * size + 1), (byte) (i * size + 255)};
                byte[] got = new byte[] {dst[i].get(ValueLayout.JAVA_BYTE, 0), dst[i].get(ValueLayout.JAVA_BYTE, 1),
                    dst[i].get(ValueLayout.JAVA_BYTE, 255)};
                assertArrayEquals(expected, got);
            }
        }
    }

    @Test
    void shouldPollByReadingTheSocketAndBlockInBlockingMode() throws Exception {
        assumeTrue(PollBudget.enabled(), "polling is off in this JVM");
        java.util.function.Supplier<PollBudget.LoadSample> saved = PollBudget.runnableSource;
        // An idle machine, so that the load rules let the reader poll; a home that polls too, so that polls pay.
        PollBudget.runnableSource = () -> new PollBudget.LoadSample(0, 1);
        try (FakeHome home = new FakeHome(FakeHome.Mode.ANSWER, true); RemoteConnection c = open(home)) {
            for (int i = 0; i < 40; i++) {
                PollBudget.sampleRunnable();
            }
            // A call whose poll read its reply leaves the socket non-blocking for the next poll (a
            // call that blocked, when a poll was preempted, leaves it blocking: look for the first kind).
            boolean found = assertTimeoutPreemptively(BOUND, () -> {
                long until = System.nanoTime() + 10 * SECOND;
                while (System.nanoTime() - until < 0) {
                    long before = c.polledReads();
                    RemoteCall r = c.load(1, FakeHome.token(), 0, 8, System.nanoTime() + 5 * SECOND);
                    assertEquals(0, r.status);
                    assertEquals(FakeHome.VALUE, r.value);
                    if (c.polledReads() > before && !c.socketBlocking()) {
                        return true;
                    }
                }
                return false;
            });
            assertTrue(found, "a poll read a reply from the socket itself, which stayed non-blocking after the call");
            home.answerAfter(Duration.ofMillis(20)); // longer than any poll: the wait blocks
            RemoteCall late = assertTimeoutPreemptively(BOUND,
                () -> c.load(1, FakeHome.token(), 0, 8, System.nanoTime() + 5 * SECOND));
            assertEquals(0, late.status);
            assertEquals(FakeHome.VALUE, late.value);
            assertTrue(c.socketBlocking(), "a wait that blocks does so in blocking mode");
            home.answerAfter(Duration.ZERO);
            assertTimeoutPreemptively(BOUND, () -> {
                for (int i = 0; i < 100; i++) {
                    assertEquals(FakeHome.VALUE, c.load(1, FakeHome.token(), 0, 8, System.nanoTime() + 5 * SECOND).value);
                }
            });
            assertFalse(c.broken());
        } finally {
            PollBudget.runnableSource = saved;
            for (int i = 0; i < 40; i++) {
                PollBudget.sampleRunnable(); // back towards the real count
            }
        }
    }

    @Test
    void shouldKeepTheConnectionWhenTheCallerWasInterruptedBefore() throws Exception {
        try (FakeHome home = new FakeHome(FakeHome.Mode.ANSWER); RemoteConnection c = open(home)) {
            assertTimeoutPreemptively(BOUND, () -> {
                Thread.currentThread().interrupt();
                try {
                    RemoteCall r = c.load(1, FakeHome.token(), 0, 8, System.nanoTime() + 5 * SECOND);
                    assertEquals(0, r.status);
                    assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is set again for the caller");
                } finally {
                    Thread.interrupted();
                }
            });
            assertFalse(c.broken(), "an interrupt set before the call does not close the socket");
        }
    }
}
