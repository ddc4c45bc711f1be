package io.softcmi.vmmc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** close() racing a notification handler that is still sending. */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class VmmcCloseRaceTest {
    @TempDir
    static Path share;
    static Endpoint peer;

    @BeforeAll
    static void start() {
        Endpoint.useSession(share, "close-race", "alpha");
        peer = new Endpoint("peer");
    }

    @AfterAll
    static void stop() {
        Endpoint.closeAll(peer);
    }

    /**
     * A handler that runs on while its endpoint closes, and sends (SendDataAsync, then SendData:
     * both allowed in handlers) once close has stopped the transfer thread: each call fails with
     * a VMMC error, and close returns. The order is forced: the handler waits until close has
     * left the session directory (after the transfer thread is stopped, before the context closes).
     */
    @Test
    void shouldFailSendsOfAHandlerRunningThroughCloseAndStillClose() throws Exception {
        Endpoint rx = new Endpoint("closing");
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<String> outcomes = new CopyOnWriteArrayList<>();
        MemorySegment peerBuf = peer.with(v -> v.allocate(4));
        peer.run(v -> v.exportRecvBuf(peerBuf, 4, 1, null, EnumSet.of(BufFlag.READWRITE), 0));
        VmmcNode node = peer.with(Vmmc::myNode);
        VmmcPid peerPid = peer.with(Vmmc::myPid);
        ImportHandle toPeer = rx.with(v -> v.importRecvBuf(node, peerPid, 1));
        MemorySegment src = Arena.ofAuto().allocate(4, 4);
        Vmmc closing = rx.vmmc;
        MemorySegment buf = rx.with(v -> v.allocate(4));
        rx.run(v -> v.exportRecvBuf(buf, 4, 2, (addr, value) -> {
            entered.countDown();
            try {
                if (!release.await(60, TimeUnit.SECONDS)) {
                    outcomes.add("not released");
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            outcomes.add(outcome(() -> closing.sendDataAsync(src, toPeer.proxyBuf(), 1)));
            outcomes.add(outcome(() -> closing.sendData(src, toPeer.proxyBuf(), 1)));
        }, EnumSet.of(BufFlag.READWRITE), 0));
        VmmcPid rxPid = rx.with(Vmmc::myPid);
        ImportHandle toRx = peer.with(v -> v.importRecvBuf(node, rxPid, 2));
        peer.run(v -> v.sendDataNotify(src, toRx.proxyBuf(), 1));
        assertTrue(entered.await(60, TimeUnit.SECONDS));
        CompletableFuture<Void> close = CompletableFuture.runAsync(rx::close);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (closing.directory.registered(node.name(), rxPid.value()) && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        release.countDown();
        close.get(120, TimeUnit.SECONDS);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (outcomes.size() < 2 && System.nanoTime() < until) {
            Thread.sleep(5);
        }
        assertEquals(List.of("VmmcException", "VmmcException"), outcomes);
    }

    private static String outcome(Runnable call) {
        try {
            call.run();
            return "returned";
        } catch (RuntimeException e) {
            return e.getClass().getSimpleName();
        }
    }
}
