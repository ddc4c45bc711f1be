package io.softcmi.cmi.internal;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * The deadline of the remote data path's blocking socket calls: one daemon thread per process
 * that looks, every {@link #TICK_NANOS}, at each plain {@link RemoteConnection} whose reader
 * is blocked in {@code read} or whose writer is blocked in {@code write}. A call past its
 * deadline fails the connection ({@link RemoteConnection#STATUS_TIMEOUT}, TRANSIENT for the
 * caller); closing the socket ends the blocked call. A write blocked for a tick while nobody
 * reads has the replies the home cannot get rid of read for it (the home stops reading a
 * connection whose replies it cannot write). So a request waits in one system call, with no
 * selector and no timer per call, and still never waits past its deadline.
 *
 * <p>The thread sleeps while no connection is registered, and costs one wake-up per tick
 * otherwise.
 */
final class BlockingWatchdog {
    /** How often the watchdog looks: the precision of a blocked call's deadline. */
    static final long TICK_NANOS = 10_000_000;
    private static final Set<RemoteConnection> WATCHED = ConcurrentHashMap.newKeySet();
    private static volatile Thread thread;

    private BlockingWatchdog() {
    }

    /** Starts watching {@code c} (a connection in blocking mode). */
    static void watch(RemoteConnection c) {
        WATCHED.add(c);
        Thread t = thread;
        if (t == null) {
            synchronized (BlockingWatchdog.class) {
                t = thread;
                if (t == null) {
                    t = Thread.ofPlatform().daemon().name("softcmi-remote-deadlines").unstarted(BlockingWatchdog::run);
                    thread = t;
                    t.start();
                }
            }
        }
        LockSupport.unpark(t);
    }

    /** Stops watching {@code c} (closed). */
    static void unwatch(RemoteConnection c) {
        WATCHED.remove(c);
    }

    /** @return whether {@code c} is watched (for tests) */
    static boolean watching(RemoteConnection c) {
        return WATCHED.contains(c);
    }

    private static void run() {
        while (true) {
            if (WATCHED.isEmpty()) {
                LockSupport.park(BlockingWatchdog.class);
                continue;
            }
            LockSupport.parkNanos(BlockingWatchdog.class, TICK_NANOS);
            long now = System.nanoTime();
            for (RemoteConnection c : WATCHED) {
                try {
                    c.checkBlocked(now, TICK_NANOS);
                } catch (RuntimeException e) {
                    // One connection's trouble must not stop the watch of the others.
                }
            }
        }
    }
}
