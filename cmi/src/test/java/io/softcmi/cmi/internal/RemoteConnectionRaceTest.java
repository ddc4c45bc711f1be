package io.softcmi.cmi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.wire.DataProtocol;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Several threads of one context on one pipelined {@link RemoteConnection}, against a
 * {@link FakeHome}: every caller gets its own reply (a reply's bytes name the offset asked for),
 * queued requests are written before their callers wait, the reader role and the socket's mode
 * switches lose nothing, and a connection that fails while calls are in flight fails every one
 * of them, nobody hanging. The polls run as on an idle machine ({@link PollBudget#runnableSource}),
 * so that the reader's non-blocking polls and blocking waits alternate. More rounds with
 * {@code -Dsoftcmi.test.raceRounds=N}.
 */
class RemoteConnectionRaceTest {
    private static final long SECOND = 1_000_000_000L;
    private static final Duration BOUND = Duration.ofSeconds(120);
    private static final int ROUNDS = Integer.getInteger("softcmi.test.raceRounds", 1);

    /** The bits of a 4-byte load at {@code offset} from a {@link FakeHome}: each byte its offset's low byte. */
    private static long expected4(long offset) {
        int v = 0;
        for (int i = 3; i >= 0; i--) {
            v = (v << 8) | ((int) (offset + i) & 0xff);
        }
        return v;
    }

    /** Checks that {@code dst} holds what a {@link FakeHome} sends for a GET at {@code offset}. */
    private static String checkBytes(MemorySegment dst, long offset, long length, String what) {
        for (long i = 0; i < length; i += Math.max(1, length / 64)) {
            byte got = dst.get(ValueLayout.JAVA_BYTE, i);
            if (got != (byte) (offset + i)) {
                return what + ": byte " + i + " of a GET at " + offset + " is " + got + ", expected " + (byte) (offset + i);
            }
        }
        byte last = dst.get(ValueLayout.JAVA_BYTE, length - 1);
        if (last != (byte) (offset + length - 1)) {
            return what + ": last byte of a GET at " + offset + " is " + last;
        }
        return null;
    }

    private static RemoteConnection open(FakeHome home) throws Exception {
        return RemoteConnection.open(home.address(), new byte[8], null, 5 * SECOND);
    }

    /** Runs {@code body} with the load rules fed an idle machine and no back-off, so that the reader polls. */
    private static void polling(ThrowingRunnable body) throws Exception {
        Supplier<PollBudget.LoadSample> saved = PollBudget.runnableSource;
        PollBudget.runnableSource = () -> new PollBudget.LoadSample(0.1, 1);
        try {
            for (int i = 0; i < 40; i++) {
                PollBudget.sampleRunnable();
            }
            PollBudget.endBackOff();
            body.run();
        } finally {
            PollBudget.runnableSource = saved;
            for (int i = 0; i < 40; i++) {
                PollBudget.sampleRunnable();
            }
        }
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    /** Runs {@code n} threads of {@code body(k)} and waits for all; an exception or error in one is a failure. */
    private static void runThreads(int n, java.util.function.IntConsumer body, ConcurrentLinkedQueue<String> failures)
            throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            int kk = k;
            threads.add(Thread.ofPlatform().name("race-" + k).start(() -> {
                try {
                    body.accept(kk);
                } catch (Throwable t) {
                    failures.add("thread " + kk + ": " + t);
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
    }

    /** One mixed operation of thread {@code k}: returns a failure's description, or null; {@code statusOut[0]} gets the status. */
    private static String operation(RemoteConnection c, Arena arena, MemorySegment big, int k, int i, int[] statusOut) {
        long deadline = System.nanoTime() + 30 * SECOND;
        long base = (long) k * 1_000_003 + (long) i * 257;
        switch (i % 5) {
            case 0 -> {
                RemoteCall r = c.load(1, FakeHome.token(), base, 4, deadline);
                statusOut[0] = r.status;
                if (r.status == 0 && r.value != expected4(base)) {
                    return "load at " + base + " got " + Long.toHexString(r.value) + ", expected " + Long.toHexString(expected4(base));
                }
            }
            case 1 -> {
                // Memory only this thread may touch (the reader copies the reply aside for it), or shared memory.
                try (Arena own = i % 10 == 1 ? Arena.ofConfined() : Arena.ofShared()) {
                    MemorySegment dst = own.allocate(100);
                    RemoteCall r = c.start(DataProtocol.OP_GET, 1, FakeHome.token(), base, 100, 0, null, dst, 100,
                        false, deadline);
                    c.await(r, deadline);
                    statusOut[0] = r.status;
                    if (r.status == 0) {
                        return checkBytes(dst, base, 100, "started GET");
                    }
                }
            }
            case 2 -> {
                MemorySegment queuedDst = arena.allocate(40);
                RemoteCall q = c.queue(DataProtocol.OP_GET, 1, FakeHome.token(), base, 40, 0, queuedDst, 40, false,
                    deadline);
                if (i % 10 == 2) { // carried by the next request, else written alone when awaited
                    RemoteCall r = c.load(1, FakeHome.token(), base + 7, 4, deadline);
                    if (r.status == 0 && r.value != expected4(base + 7)) {
                        return "load after a queued GET got " + Long.toHexString(r.value);
                    }
                }
                c.await(q, deadline);
                statusOut[0] = q.status;
                if (q.status == 0) {
                    return checkBytes(queuedDst, base, 40, "queued GET");
                }
            }
            case 3 -> {
                statusOut[0] = c.store(1, FakeHome.token(), base, 8, 42, deadline);
            }
            default -> {
                int size = k == 0 ? 3 * DataProtocol.MAX_PAYLOAD / 2 : 200_000;
                MemorySegment seg = big.asSlice(0, size);
                if (k == 0) { // large stores: writes that fill the socket
                    statusOut[0] = c.put(1, FakeHome.token(), base, seg, size, deadline);
                } else {
                    statusOut[0] = c.get(1, FakeHome.token(), base, seg, size, deadline);
                    if (statusOut[0] == 0) {
                        return checkBytes(seg, base, size, "bulk GET");
                    }
                }
            }
        }
        return null;
    }

    /** Several threads, every kind of call, polls and blocking waits: each caller gets its own reply and nothing fails. */
    @Test
    void shouldGiveEveryCallerItsOwnReply() throws Exception {
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        polling(() -> assertTimeoutPreemptively(BOUND, () -> {
            for (int round = 0; round < ROUNDS; round++) {
                for (boolean spin : new boolean[] {true, false}) {
                    for (int threads : new int[] {2, 4}) {
                        try (FakeHome home = new FakeHome(FakeHome.Mode.ANSWER, spin); RemoteConnection c = open(home);
                                Arena arena = Arena.ofShared()) {
                            runThreads(threads, k -> {
                                int[] status = new int[1];
                                MemorySegment big = arena.allocate(2L * DataProtocol.MAX_PAYLOAD);
                                for (int i = 0; i < 250 && failures.isEmpty(); i++) {
                                    PollBudget.endBackOff();
                                    String f = operation(c, arena, big, k, i, status);
                                    if (f != null) {
                                        failures.add("thread " + k + " op " + i + ": " + f);
                                    }
                                    if (status[0] != 0) {
                                        failures.add("thread " + k + " op " + i + " (kind " + i % 5 + ", spin " + spin + ", "
                                            + threads + " threads): status " + status[0]);
                                    }
                                }
                            }, failures);
                            assertTrue(failures.isEmpty(), failures.toString());
                            assertTrue(!c.broken(), "connection broken");
                        }
                    }
                }
            }
        }));
    }

    /**
     * One writer of large stores and one caller of small loads, the reader polling by
     * non-blocking reads: a writer whose socket is full while the mode goes back to blocking
     * must not end up blocked where nothing will come.
     */
    @Test
    void shouldKeepALargeStoreGoingWhileTheReaderSwitchesModes() throws Exception {
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        polling(() -> assertTimeoutPreemptively(BOUND, () -> {
            for (int round = 0; round < ROUNDS; round++) {
                try (FakeHome home = new FakeHome(FakeHome.Mode.ANSWER, true); RemoteConnection c = open(home);
                        Arena arena = Arena.ofShared()) {
                    MemorySegment src = arena.allocate(2L * DataProtocol.MAX_PAYLOAD);
                    AtomicLong stores = new AtomicLong();
                    runThreads(2, k -> {
                        for (int i = 0; i < 150 && failures.isEmpty(); i++) {
                            PollBudget.endBackOff();
                            long deadline = System.nanoTime() + 10 * SECOND;
                            if (k == 0) {
                                int s = c.put(1, FakeHome.token(), 0, src, src.byteSize(), deadline);
                                if (s != 0) {
                                    failures.add("store " + i + ": status " + s);
                                }
                                stores.incrementAndGet();
                            } else {
                                for (int j = 0; j < 20; j++) {
                                    long at = (long) i * 4096 + j * 8L;
                                    RemoteCall r = c.load(1, FakeHome.token(), at, 4, deadline);
                                    if (r.status != 0 || r.value != expected4(at)) {
                                        failures.add("load " + i + "/" + j + ": status " + r.status + " value " + Long.toHexString(r.value));
                                    }
                                }
                            }
                        }
                    }, failures);
                    assertTrue(failures.isEmpty(), failures.toString());
                }
            }
        }));
    }

    /**
     * A connection that fails (a deadline elsewhere, the home declared dead) while several
     * threads have calls in flight: every call ends, with its own reply or with the failure,
     * and none waits on.
     */
    @Test
    void shouldFailEveryCallInFlightWhenTheConnectionFails() throws Exception {
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        polling(() -> assertTimeoutPreemptively(BOUND, () -> {
            for (int round = 0; round < ROUNDS * 8; round++) {
                boolean spin = round % 2 == 0;
                try (FakeHome home = new FakeHome(FakeHome.Mode.ANSWER, spin); RemoteConnection c = open(home);
                        Arena arena = Arena.ofShared()) {
                    AtomicLong ok = new AtomicLong();
                    int threads = 3;
                    long failAfter = 20 + (round * 37L) % 200;
                    int r0 = round;
                    RemoteConnection conn = c;
                    Thread failer = Thread.ofPlatform().start(() -> {
                        while (ok.get() < failAfter && !c.broken()) {
                            Thread.onSpinWait();
                        }
                        if (r0 % 3 == 0) {
                            conn.close(); // as when the node declares the home dead
                        } else {
                            c.fail(RemoteConnection.STATUS_TIMEOUT);
                        }
                    });
                    runThreads(threads, k -> {
                        int[] status = new int[1];
                        MemorySegment big = arena.allocate(2L * DataProtocol.MAX_PAYLOAD);
                        for (int i = 0; ; i++) {
                            PollBudget.endBackOff();
                            String f = operation(c, arena, big, k, i, status);
                            if (f != null) {
                                failures.add("thread " + k + " op " + i + ": " + f);
                            }
                            if (status[0] != 0) {
                                if (status[0] != RemoteConnection.STATUS_IO && status[0] != RemoteConnection.STATUS_TIMEOUT) {
                                    failures.add("thread " + k + ": status " + status[0]);
                                }
                                break; // every call after the failure fails too: each thread ends here
                            }
                            ok.incrementAndGet();
                        }
                    }, failures);
                    failer.join();
                    assertTrue(c.broken());
                    assertTrue(failures.isEmpty(), failures.toString());
                }
            }
        }));
    }

    /**
     * A home that stops answering while several threads wait: the first deadline fails the
     * connection, and every waiter gets that failure (the first failure's status), the one
     * blocked in {@code read} and the ones parked alike.
     */
    @Test
    void shouldFailEveryWaiterWithTheFirstFailureWhenTheHomeStopsAnswering() throws Exception {
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        polling(() -> assertTimeoutPreemptively(BOUND, () -> {
            int rounds = ROUNDS * 10;
            int failed = 0;
            for (int round = 0; round < rounds; round++) {
                try (FakeHome home = new FakeHome(FakeHome.Mode.SILENT, round % 2 == 0); RemoteConnection c = open(home)) {
                    int threads = 4;
                    int rr = round;
                    int before = failures.size();
                    runThreads(threads, k -> {
                        // One thread's deadline comes first (a tenth of a second); the others wait far longer.
                        long deadline = System.nanoTime() + (k == (rr % threads) ? SECOND / 10 : 60 * SECOND);
                        RemoteCall r = c.load(1, FakeHome.token(), k * 8L, 4, deadline);
                        if (r.status != RemoteConnection.STATUS_TIMEOUT) {
                            failures.add("round " + rr + " thread " + k + ": status " + r.status);
                        }
                    }, failures);
                    assertTrue(c.broken());
                    failed += failures.size() > before ? 1 : 0;
                }
            }
            assertEquals(List.of(), List.copyOf(failures), "failed in " + failed + " of " + rounds + " rounds");
        }));
    }

    /** A socket's write side whose first write finds it full (takes nothing) and whose later writes take everything. */
    private static final class FullOnce extends GatheringWriteStub {
        int writes;

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) {
            if (writes++ == 0) {
                return 0;
            }
            long n = 0;
            for (int i = offset; i < offset + length; i++) {
                n += srcs[i].remaining();
                srcs[i].position(srcs[i].limit());
            }
            return n;
        }
    }

    /**
     * A writer whose non-blocking write found the socket full finds the reader role free after a
     * reader put the socket back in blocking mode ({@code blockingAgain}: its wait blocked, its
     * reply came, it left): the writer may read replies that wait, but must not block in
     * {@code read}, where nothing may come (its own request half-written, no other reply due)
     * until its deadline fails a healthy connection. Built deterministically: a channel whose
     * first write takes nothing stands for the full non-blocking socket, and the reader is in
     * blocking mode on a socket whose peer sends nothing.
     */
    @Test
    void shouldNotBlockAWriterInReadWhenTheSocketWentBackToBlockingModeWhileItWasFull() throws Exception {
        try (FakeHome home = new FakeHome(FakeHome.Mode.ANSWER); RemoteConnection c = open(home);
                ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
                SocketChannel quiet = SocketChannel.open(server.getLocalAddress());
                SocketChannel peer = server.accept()) {
            ConcurrentHashMap<Long, RemoteCall> calls = new ConcurrentHashMap<>();
            ReplyReader reader = new ReplyReader(c, quiet, null, null, calls);
            FullOnce out = new FullOnce();
            RequestWriter writer = new RequestWriter(c, out, out, null, calls, reader);
            reader.goBlocking(quiet, quiet.socket().getInputStream(), writer.sendLock); // blocking, as blockingAgain leaves it
            RemoteCall call = new RemoteCall();
            assertTimeoutPreemptively(Duration.ofSeconds(10), () -> writer.send(call, DataProtocol.OP_GET, 1, FakeHome.token(), 0,
                8, 0, null, System.nanoTime() + 60 * SECOND), "the writer blocked in read");
            assertEquals(2, out.writes, "written once the socket took it");
            assertTrue(!call.done && peer.isOpen(), "no failure");
        }
    }
    /**
     * A connection that fails while replies with payloads are being read: a call the failure
     * completed is no longer the reader's, and a call the reader took is completed by the reader
     * alone. Before, the reader could take a reply for a call the failure had just completed and
     * write its status (0) into it, and its caller then returned success with its memory not yet
     * (or only partly) filled, or the reader wrote into that memory after its caller had returned.
     * Several threads keep replies of 60 KB (copied from the reader's buffer) and 150 KB (read
     * straight into the caller's memory) in flight; the connection fails at a different moment in
     * each round. Every call that reports success must hold its own bytes.
     */
    @Test
    void shouldNeverReportSuccessWithAReplyNotFullyReadWhenTheConnectionFails() throws Exception {
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        int rounds = ROUNDS * 40;
        int[] failedRounds = new int[1];
        polling(() -> assertTimeoutPreemptively(BOUND, () -> {
            for (int round = 0; round < rounds; round++) {
                boolean spin = round % 2 == 0;
                int before = failures.size();
                try (FakeHome home = new FakeHome(FakeHome.Mode.ANSWER, spin); RemoteConnection c = open(home);
                        Arena arena = Arena.ofShared()) {
                    AtomicLong ok = new AtomicLong();
                    long failAfter = 5 + (round * 13L) % 60;
                    RemoteConnection conn = c;
                    int r0 = round;
                    Thread failer = Thread.ofPlatform().start(() -> {
                        while (ok.get() < failAfter && !conn.broken()) {
                            Thread.onSpinWait();
                        }
                        if (r0 % 2 == 0) {
                            conn.close();
                        } else {
                            conn.fail(RemoteConnection.STATUS_TIMEOUT);
                        }
                    });
                    int[] sizes = {60_000, 60_000, 150_000, 60_000};
                    runThreads(3, k -> {
                        MemorySegment[] dst = new MemorySegment[sizes.length];
                        for (int j = 0; j < sizes.length; j++) {
                            dst[j] = arena.allocate(sizes[j]);
                        }
                        RemoteCall[] calls = new RemoteCall[sizes.length];
                        long[] at = new long[sizes.length];
                        for (int i = 0; ; i++) {
                            long deadline = System.nanoTime() + 30 * SECOND;
                            for (int j = 0; j < sizes.length; j++) {
                                dst[j].fill((byte) 0x5a); // not what the home sends there
                                at[j] = (long) k * 10_000_019 + (long) i * 1031 + j * 7L;
                                calls[j] = c.start(DataProtocol.OP_GET, 1, FakeHome.token(), at[j], sizes[j], 0, null, dst[j],
                                    sizes[j], false, deadline);
                            }
                            boolean failed = false;
                            for (int j = 0; j < sizes.length; j++) {
                                c.await(calls[j], deadline);
                                if (calls[j].status == 0) {
                                    String f = checkBytes(dst[j], at[j], sizes[j], "GET of " + sizes[j] + " bytes");
                                    if (f != null) {
                                        failures.add("round " + r0 + " thread " + k + " op " + i + ": " + f);
                                    }
                                    ok.incrementAndGet();
                                } else {
                                    failed = true;
                                }
                            }
                            if (failed) {
                                return;
                            }
                        }
                    }, failures);
                    failer.join();
                }
                failedRounds[0] += failures.size() > before ? 1 : 0;
            }
        }));
        assertEquals(List.of(), List.copyOf(failures), "failed in " + failedRounds[0] + " of " + rounds + " rounds");
    }
    /**
     * A reply the reader refuses (more bytes than its call reads: a home that breaks the
     * protocol) fails the connection, and the call whose reply it was, which the reader had
     * already taken, still ends with the failure rather than waiting on forever.
     */
    @Test
    void shouldFailTheCallOfAMalformedReply() throws Exception {
        try (FakeHome home = new FakeHome(FakeHome.Mode.ANSWER); RemoteConnection c = open(home); Arena arena = Arena.ofShared()) {
            MemorySegment dst = arena.allocate(100);
            long deadline = System.nanoTime() + 60 * SECOND;
            // The home sends the 100 bytes asked for; the call reads 50.
            RemoteCall r = c.start(DataProtocol.OP_GET, 1, FakeHome.token(), 0, 100, 0, null, dst, 50, false, deadline);
            assertTimeoutPreemptively(Duration.ofSeconds(10), () -> c.await(r, deadline), "the call waited on");
            assertEquals(RemoteConnection.STATUS_IO, r.status);
            assertTrue(c.broken());
        }
    }
}
