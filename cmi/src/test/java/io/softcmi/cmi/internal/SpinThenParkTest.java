package io.softcmi.cmi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SpinThenParkTest {

    @Test
    void shouldReturnAWaitingElementAtOnce() throws InterruptedException {
        LinkedBlockingQueue<String> q = new LinkedBlockingQueue<>();
        q.add("a");
        assertEquals("a", SpinThenPark.take(q, 0, 0));
    }

    @Test
    void shouldReturnNullAfterTheTimeoutWhetherOrNotItSpun() throws InterruptedException {
        LinkedBlockingQueue<String> q = new LinkedBlockingQueue<>();
        assertNull(SpinThenPark.take(q, 0, System.nanoTime()));
        assertNull(SpinThenPark.take(q, TimeUnit.MILLISECONDS.toNanos(20), 0), "idle: parks at once");
        assertNull(SpinThenPark.take(q, TimeUnit.MILLISECONDS.toNanos(20), System.nanoTime()), "recent: spins, then parks");
    }

    @Test
    void shouldWakeAParkedWaiterWhenAnElementArrives() throws InterruptedException {
        LinkedBlockingQueue<String> q = new LinkedBlockingQueue<>();
        Thread producer = Thread.ofPlatform().start(() -> {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                return;
            }
            q.add("late");
        });
        assertEquals("late", SpinThenPark.take(q, TimeUnit.SECONDS.toNanos(30), 0));
        producer.join();
    }
}
