package io.softcmi.vmmc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.cmi.CmiAccessError;
import io.softcmi.cmi.CmiAccessException;
import io.softcmi.cmi.notify.PendingPut;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link SendWindow} with scripted outcomes: bounded, refusals reported once and in order, and a
 * frame waits for the unanswered frames of the other path whose order it needs, also while
 * another thread waits for them; no thread waits for an answer while holding the window.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SendWindowTest {
    /** A pending put whose outcome the test sets. */
    private static final class Scripted implements PendingPut {
        final RuntimeException failure;
        volatile boolean done;
        int awaited;

        Scripted(boolean done, RuntimeException failure) {
            this.done = done;
            this.failure = failure;
        }

        @Override
        public boolean done() {
            return done;
        }

        @Override
        public void await() {
            awaited++;
            done = true;
            if (failure != null) {
                throw failure;
            }
        }

        @Override
        public long creatorBacklog() {
            return 0;
        }
    }

    /** A pending put answered when the test says so; counts the threads that wait for it. */
    private static final class Gated implements PendingPut {
        final CountDownLatch answered = new CountDownLatch(1);
        final AtomicInteger waiting = new AtomicInteger();
        final RuntimeException failure;

        Gated(RuntimeException failure) {
            this.failure = failure;
        }

        void answer() {
            answered.countDown();
        }

        /** Waits (at most 10 s) until {@code n} threads wait for this answer. */
        void awaitWaiters(int n) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (waiting.get() < n && System.nanoTime() - deadline < 0) {
                Thread.sleep(1);
            }
            assertEquals(n, waiting.get(), "threads waiting for the answer");
        }

        @Override
        public boolean done() {
            return answered.getCount() == 0;
        }

        @Override
        public void await() {
            waiting.incrementAndGet();
            try {
                if (!answered.await(30, TimeUnit.SECONDS)) {
                    throw new AssertionError("never answered");
                }
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            if (failure != null) {
                throw failure;
            }
        }

        @Override
        public long creatorBacklog() {
            return 0;
        }
    }

    private static CmiAccessException refused() {
        return new CmiAccessException(CmiAccessError.TOKEN, 1, 0);
    }

    @Test
    void shouldWaitForTheOldestWhenTheWindowIsFull() {
        SendWindow w = new SendWindow();
        List<Scripted> sent = new ArrayList<>();
        for (int i = 0; i < SendWindow.SIZE + 3; i++) {
            w.beforeSend();
            Scripted p = new Scripted(false, null);
            sent.add(p);
            w.add(p, SendWindow.Path.HOME_NOTICE);
        }
        for (int i = 0; i < 3; i++) {
            assertEquals(1, sent.get(i).awaited, "message " + i + " was waited for to make room");
        }
        assertEquals(0, sent.get(3).awaited, "the window holds the newest " + SendWindow.SIZE);
        assertNull(w.drain());
        assertTrue(sent.stream().allMatch(p -> p.awaited == 1), "each waited for exactly once");
    }

    @Test
    void shouldReportAnAnsweredRefusalAtTheNextSendOnce() {
        SendWindow w = new SendWindow();
        w.add(new Scripted(true, null), SendWindow.Path.HOME_NOTICE);
        w.add(new Scripted(true, refused()), SendWindow.Path.HOME_NOTICE);
        Scripted later = new Scripted(false, null);
        w.add(later, SendWindow.Path.HOME_NOTICE);
        VmmcException e = assertThrows(VmmcException.class, w::beforeSend);
        assertEquals(VmmcResult.BAD_IBUF_STATE, e.result());
        w.beforeSend(); // reported once; the unanswered one stays
        assertEquals(0, later.awaited);
        assertNull(w.drain());
    }

    @Test
    void shouldWaitForAllOnDrainAndReturnTheFirstRefusal() {
        SendWindow w = new SendWindow();
        Scripted a = new Scripted(false, refused());
        Scripted b = new Scripted(false, new CmiAccessException(CmiAccessError.TRANSIENT, 1, 0));
        Scripted c = new Scripted(false, null);
        w.add(a, SendWindow.Path.HOME_NOTICE);
        w.add(b, SendWindow.Path.HOME_NOTICE);
        w.add(c, SendWindow.Path.HOME_NOTICE);
        VmmcException e = w.drain();
        assertTrue(e.getMessage().contains("TOKEN"), e.getMessage());
        assertEquals(1, c.awaited, "drain waits for every message");
        assertNull(w.drain(), "empty afterwards");
    }

    @Test
    void shouldWaitForTheHomesFramesBeforeARouteFrame() {
        for (SendWindow.Path next : List.of(SendWindow.Path.ROUTE, SendWindow.Path.ROUTE_NOTICE)) {
            for (SendWindow.Path home : List.of(SendWindow.Path.HOME_STORE, SendWindow.Path.HOME_NOTICE)) {
                SendWindow w = new SendWindow();
                Scripted a = new Scripted(false, null);
                w.add(a, home);
                w.onPath(SendWindow.Path.HOME_STORE);
                w.onPath(SendWindow.Path.HOME_NOTICE);
                assertEquals(0, a.awaited, "the home's own frames keep their order");
                w.onPath(next);
                assertEquals(1, a.awaited, next + " after " + home + " waits for it");
            }
        }
    }

    @Test
    void shouldWaitForTheRoutesStoresBeforeAHomeStoreAndForEveryRouteFrameBeforeAHomeNotice() {
        SendWindow w = new SendWindow();
        Scripted notice = new Scripted(false, null);
        w.add(notice, SendWindow.Path.ROUTE_NOTICE);
        w.onPath(SendWindow.Path.ROUTE);
        w.onPath(SendWindow.Path.HOME_STORE);
        assertEquals(0, notice.awaited, "a home store need not wait for a notice alone");
        w.onPath(SendWindow.Path.HOME_NOTICE);
        assertEquals(1, notice.awaited, "a home notice waits for the route's notices");
        Scripted store = new Scripted(false, null);
        w.add(store, SendWindow.Path.ROUTE);
        w.onPath(SendWindow.Path.HOME_STORE);
        assertEquals(1, store.awaited, "a home store waits for the route's stores");
    }

    @Test
    void shouldThrowARefusalMetOnAChangeOfPath() {
        SendWindow w = new SendWindow();
        w.add(new Scripted(false, refused()), SendWindow.Path.HOME_STORE);
        VmmcException e = assertThrows(VmmcException.class, () -> w.onPath(SendWindow.Path.ROUTE_NOTICE));
        assertEquals(VmmcResult.BAD_IBUF_STATE, e.result());
        w.onPath(SendWindow.Path.ROUTE); // answered and reported: nothing left to wait for
        assertNull(w.drain());
    }

    @Test
    void shouldLetAnotherThreadSendWhileOneWaitsForAnAnswer() throws Exception {
        SendWindow w = new SendWindow();
        Gated slow = new Gated(null);
        w.add(slow, SendWindow.Path.ROUTE);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<VmmcException> drained = pool.submit(w::drain);
            slow.awaitWaiters(1);
            Scripted later = new Scripted(false, null);
            pool.submit(() -> {
                w.beforeSend();
                w.onPath(SendWindow.Path.ROUTE);
                w.add(later, SendWindow.Path.ROUTE);
            }).get(10, TimeUnit.SECONDS); // not held up by the drain's wait
            assertFalse(drained.isDone(), "the drain waits for the answer");
            slow.answer();
            assertNull(drained.get(10, TimeUnit.SECONDS));
            assertEquals(0, later.awaited, "the drain waits for the messages outstanding when it began");
            assertNull(w.drain());
            assertEquals(1, later.awaited);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void shouldWaitOnAChangeOfPathForAFrameAnotherThreadWaitsFor() throws Exception {
        SendWindow w = new SendWindow();
        Gated home = new Gated(null);
        w.add(home, SendWindow.Path.HOME_STORE);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<VmmcException> drained = pool.submit(w::drain);
            home.awaitWaiters(1);
            Future<?> route = pool.submit(() -> w.onPath(SendWindow.Path.ROUTE));
            home.awaitWaiters(2);
            Thread.sleep(50);
            assertFalse(route.isDone(), "a route frame waits for the home frame's answer, though another thread waits for it");
            home.answer();
            route.get(10, TimeUnit.SECONDS);
            assertNull(drained.get(10, TimeUnit.SECONDS));
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void shouldReportARefusalTwoThreadsWaitForOnce() throws Exception {
        SendWindow w = new SendWindow();
        Gated refusedHome = new Gated(refused());
        w.add(refusedHome, SendWindow.Path.HOME_NOTICE);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<VmmcException> drained = pool.submit(w::drain);
            Future<VmmcException> changed = pool.submit(() -> {
                try {
                    w.onPath(SendWindow.Path.ROUTE);
                    return null;
                } catch (VmmcException e) {
                    return e;
                }
            });
            refusedHome.awaitWaiters(2);
            refusedHome.answer();
            VmmcException a = drained.get(10, TimeUnit.SECONDS);
            VmmcException b = changed.get(10, TimeUnit.SECONDS);
            assertTrue(a == null ^ b == null, "reported by exactly one of them: " + a + ", " + b);
            assertEquals(VmmcResult.BAD_IBUF_STATE, (a != null ? a : b).result());
            assertNull(w.drain(), "and not again");
        } finally {
            pool.shutdownNow();
        }
    }
}
