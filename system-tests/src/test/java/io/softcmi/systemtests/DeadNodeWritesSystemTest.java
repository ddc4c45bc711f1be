package io.softcmi.systemtests;

import static io.softcmi.systemtests.FailureScenarios.DETECTOR;
import static io.softcmi.systemtests.FailureScenarios.EVENT_WAIT;
import static io.softcmi.systemtests.FailureScenarios.eventsUntil;
import static io.softcmi.systemtests.FailureScenarios.export;
import static io.softcmi.systemtests.FailureScenarios.importAndAttach;
import static io.softcmi.systemtests.FailureScenarios.signal;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.softcmi.cmi.CmiAccessError;
import io.softcmi.cmi.CmiAccessException;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.RemoteContextDown;
import io.softcmi.systemtests.FailureScenarios.Imported;
import io.softcmi.systemtests.FailureScenarios.Shared;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Dead is final at the home too (docs/failures.md): when a home declares a node dead while the
 * node's processes still run (here its daemon is stopped with {@code SIGSTOP}, and a process of
 * it keeps its data connection straight to the home), the home serves none of that node's
 * contexts any more: the open connection is closed at its next request and a store on it fails
 * with {@code TRANSIENT}, so nothing lands in memory that the creator has been told belonged to
 * a dead context. Before 2026-11-29 the home went on serving such a connection: the store below
 * landed. Once the node's daemon runs again, a fresh import of the same context is served.
 */
@Timeout(120)
class DeadNodeWritesSystemTest {
    @RegisterExtension
    final SystemTestResources resources = SystemTestResources.perTest();

    @Test
    void shouldServeNoContextOfANodeItDeclaredDeadEvenIfItsProcessesStillRun() throws Exception {
        ClusterNodes cluster = ClusterNodes.create(resources);
        NodeProcess a = cluster.startWithOptions("A", DETECTOR);
        NodeProcess b = cluster.startWithOptions("B", DETECTOR);
        ContextThread creator = cluster.context(a);
        Shared s = export(creator, 65536, true); // write-through: every store is a PUT at the home
        ContextThread onB = cluster.context(b);
        Imported ib = importAndAttach(onB, s.handle(), s.token());
        onB.run(x -> ib.mapping().putLong(0, 21)); // acknowledged
        signal("STOP", b.pid());
        try {
            eventsUntil(creator, e -> e instanceof RemoteContextDown, EVENT_WAIT); // A declared B dead
            CmiAccessException refused = assertThrows(CmiAccessException.class,
                () -> onB.run(x -> ib.mapping().putLong(8, 99)));
            assertEquals(CmiAccessError.TRANSIENT, refused.accessError(), "the home closed the dead node's connection");
            long start = System.nanoTime();
            CmiAccessException again = assertThrows(CmiAccessException.class,
                () -> onB.run(x -> ib.mapping().putLong(8, 98))); // a new connection: its HELLO refused, no new ticket
            assertEquals(CmiAccessError.TRANSIENT, again.accessError());
            assertTrue(System.nanoTime() - start < 30_000_000_000L,
                "refused within the remote timeout, not the control path's 60 s wait for the stopped daemon's ticket");
        } finally {
            signal("CONT", b.pid());
        }
        CmiMapping m = creator.call(c -> c.segAt(s.segment(), Set.of()));
        creator.run(c -> {
            assertEquals(21L, m.getLong(0), "the store acknowledged before the death is at the home");
            assertEquals(0L, m.getLong(8), "no store of a context the home declared dead lands after it");
        });
        // Its daemon runs again: a fresh import, from the same context, is served (dead is final
        // for what was imported before the declaration, not for the node).
        Imported again = importAndAttach(onB, s.handle(), s.token());
        onB.run(x -> again.mapping().putLong(16, 77));
        assertEquals(77L, (long) creator.call(c -> m.getLong(16)));
    }
}
