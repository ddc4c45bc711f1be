package io.softcmi.vmmc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** UnexportRecvBuf racing messages on their way to the buffer. */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class VmmcUnexportRaceTest {
    private static final int ROUNDS = 300;
    private static final long BUDGET_NANOS = TimeUnit.SECONDS.toNanos(60);

    @TempDir
    static Path share;
    static Endpoint rx;
    static Endpoint tx;
    static int nextId = 1;

    @BeforeAll
    static void start() {
        Endpoint.useSession(share, "unexport-race", "alpha");
        rx = new Endpoint("rx");
        tx = new Endpoint("tx");
    }

    @AfterAll
    static void stop() {
        Endpoint.closeAll(rx, tx);
    }

    /**
     * A send whose completion the sender has seen (an asynchronous send's status SUCCESS: the
     * home, or the exporter's inlet, accepted it) before the receiver unexports is in the buffer
     * when UnexportRecvBuf returns: unexport does not drop a message already accepted.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void shouldKeepEveryMessageAcceptedBeforeTheUnexport(boolean direct) throws Exception {
        String before = System.getProperty("vmmc.directDelivery");
        System.setProperty("vmmc.directDelivery", Boolean.toString(direct));
        try {
            int lost = 0;
            int rounds = 0;
            long deadline = System.nanoTime() + BUDGET_NANOS;
            VmmcNode node = rx.with(Vmmc::myNode);
            VmmcPid pid = rx.with(Vmmc::myPid);
            for (; rounds < ROUNDS && System.nanoTime() < deadline; rounds++) {
                int id = nextId++;
                int marker = 7_000 + rounds;
                MemorySegment buf = Arena.ofAuto().allocate(4 * 4, Vmmc.PAGE); // not allocate()'s: copied
                ExportHandle h = rx.with(v -> v.exportRecvBuf(buf, 4, id, null, EnumSet.of(BufFlag.READWRITE), 0));
                ImportHandle imp = tx.with(v -> v.importRecvBuf(node, pid, id));
                MemorySegment src = Arena.ofAuto().allocate(4, 4);
                src.setAtIndex(ValueLayout.JAVA_INT, 0, marker);
                AsyncHandle a = tx.with(v -> v.sendDataAsync(src, imp.proxyBuf() + 4, 1));
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (tx.vmmc.asyncStatus(a) == VmmcResult.IN_PROGRESS.code() && System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
                assertEquals(VmmcResult.SUCCESS.code(), tx.vmmc.asyncStatus(a));
                rx.run(v -> v.unexportRecvBuf(h));
                if (buf.getAtIndex(ValueLayout.JAVA_INT, 1) != marker) {
                    lost++;
                }
                tx.run(v -> v.unimportRecvBuf(imp));
            }
            System.out.printf("unexport race (direct %s): %d rounds, %d accepted messages not in the buffer%n", direct,
                rounds, lost);
            assertTrue(rounds >= 10, "too few rounds in the time budget: " + rounds);
            assertEquals(0, lost, "messages accepted before the unexport that never reached the buffer");
        } finally {
            if (before == null) {
                System.clearProperty("vmmc.directDelivery");
            } else {
                System.setProperty("vmmc.directDelivery", before);
            }
        }
    }
}
