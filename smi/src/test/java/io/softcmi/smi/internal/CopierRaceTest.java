package io.softcmi.smi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.cmi.CmiAccessError;
import io.softcmi.cmi.CmiAccessException;
import io.softcmi.smi.MemcpyFlag;
import io.softcmi.smi.MemcpyHandle;
import io.softcmi.smi.SmiAddress;
import io.softcmi.smi.SmiError;
import io.softcmi.smi.SmiRegion;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The copy thread of {@link Copier} against the caller's {@code SMI_Check_transfer}, on a job of
 * one process (the embedded CMI node) and a region whose every store fails as a gone segment does.
 */
class CopierRaceTest {
    private static final int ROUNDS = 20_000;
    private static final long BOUND_NS = 60_000_000_000L;

    private Job job;
    private Copier copier;

    @BeforeEach
    void start() {
        job = Job.start(new JobEnv(0, 1, new int[] {0}, List.of("test"), null, false, false, 30), new Debug(false));
        copier = new Copier(job);
    }

    @AfterEach
    void finish() {
        copier.close();
        job.finish();
    }

    /** A region of 4 KiB whose {@code put} fails with a CMI access error. */
    private static SmiRegion failingRegion() {
        return (SmiRegion) Proxy.newProxyInstance(SmiRegion.class.getClassLoader(), new Class<?>[] {SmiRegion.class},
            (proxy, method, args) -> switch (method.getName()) {
                case "size" -> 4096L;
                case "put" -> throw new CmiAccessException(CmiAccessError.SINVAL, 1, 0);
                case "toString" -> "failing region";
                default -> throw new UnsupportedOperationException(method.getName());
            });
    }

    @Test
    void shouldReportEveryFailedCopyToTheCheckMadeWhileItFails() {
        Copier.End dst = new Copier.RegionEnd(new SmiAddress(failingRegion(), 0));
        Copier.End src = new Copier.MemoryEnd(MemorySegment.ofArray(new byte[8]));
        int lost = 0;
        int rounds = 0;
        long t0 = System.nanoTime();
        for (; rounds < ROUNDS && System.nanoTime() - t0 < BOUND_NS; rounds++) {
            MemcpyHandle h = copier.post(dst, src, 8, Set.of(MemcpyFlag.NOBARRIER));
            boolean seen = false;
            // Checks while the copy thread fails: the failure must reach one of them or the one after.
            for (int spins = 0; copier.test(h) == SmiError.PENDING && spins < 1_000_000; spins++) {
                for (int i = 0; i < 16; i++) {
                    seen |= copier.failedSinceLastCheck();
                }
            }
            assertEquals(SmiError.TRANSFER, copier.test(h));
            seen |= copier.failedSinceLastCheck();
            lost += seen ? 0 : 1;
        }
        assertTrue(rounds > 100, "only " + rounds + " rounds in the time bound");
        assertEquals(0, lost, "failed copies SMI_Check_transfer never reported, of " + rounds);
    }
}
