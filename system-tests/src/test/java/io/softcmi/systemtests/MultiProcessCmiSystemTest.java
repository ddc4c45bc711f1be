package io.softcmi.systemtests;

import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.node.EmbeddedNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * CMI on one node used by several processes at once: a real {@code cmid} and client JVMs
 * ({@link Workers}) that share segments by id, contend with {@code atm_cas}, die with
 * {@code kill -9}, and leave reservations behind.
 */
@Timeout(180)
class MultiProcessCmiSystemTest {
    private static final int INCREMENTS = 1_000_000;

    @RegisterExtension
    final SystemTestResources resources = SystemTestResources.perTest();

    private static long segmentId(String reply) {
        assertTrue(reply.startsWith("SEGMENT "), () -> "expected SEGMENT id, got " + reply);
        return Long.parseLong(reply.substring("SEGMENT ".length()));
    }

    private static long page(ClientProcess c) {
        String[] info = c.request("info").split(" ");
        assertEquals("INFO", info[0]);
        return Long.parseLong(info[2]);
    }

    private static void ok(String expected, String reply) {
        assertEquals(expected, reply);
    }

    @Test
    void shouldShowDataWrittenByOneProcessToAnotherThroughTheSharedMapping() throws Exception {
        NodeProcess node = resources.node("share");
        ClientProcess writer = resources.client(node);
        ClientProcess reader = resources.client(node);
        long page = page(writer);
        long half = 16 * page;
        long id = segmentId(writer.request("create " + 2 * half));
        ok("ATTACHED " + id, writer.request("attach " + id));
        ok("WROTE", writer.request("write " + id + " 1 0 " + half));

        ok("ATTACHED " + id, reader.request("attach " + id));
        ok("VERIFIED", reader.request("verify " + id + " 1 0 " + half));
        ok("WROTE", reader.request("write " + id + " 2 " + half + " " + half));
        ok("VERIFIED", writer.request("verify " + id + " 2 " + half + " " + half));

        ok("ATTACHED " + id, reader.request("attach " + id + " READ"));
        ok("ACCESS_ERROR PERM " + id + " 8", reader.request("put-long " + id + " 8 1"));
        ok("VERIFIED", reader.request("verify " + id + " 1 0 " + half));
        assertTrue(writer.request("status " + id).startsWith("STATUS ACTIVE 3 "), "three attaches on the node");

        assertEquals(0, writer.exit());
        assertTrue(Files.exists(node.segmentFile(id)), "the reader still has it attached");
        assertEquals(0, reader.exit());
        assertEquals(0L, node.awaitNoSegmentFiles(Duration.ofSeconds(10)),
            "the creator exited and the last attach went: the segment is reclaimed");
    }

    @Test
    void shouldCountExactlyWhenTwoProcessesIncrementOneWordWithAtmCas() throws Exception {
        NodeProcess node = resources.node("cas");
        ClientProcess a = resources.client(node);
        ClientProcess b = resources.client(node);
        long id = segmentId(a.request("create " + page(a)));
        ok("ATTACHED " + id, a.request("attach " + id));
        ok("ATTACHED " + id, b.request("attach " + id));

        // Word 0 is the counter, word 8 the start barrier both wait at.
        String command = "cas-increment " + id + " 0 " + INCREMENTS + " 8 2";
        a.send(command);
        b.send(command);
        String ra = a.awaitReply(Duration.ofSeconds(150));
        String rb = b.awaitReply(Duration.ofSeconds(150));
        System.out.println("atm_cas workers: " + ra + " / " + rb + " (DONE increments retries)");
        assertTrue(ra.startsWith("DONE " + INCREMENTS + " "), ra);
        assertTrue(rb.startsWith("DONE " + INCREMENTS + " "), rb);
        ok("VALUE " + 2L * INCREMENTS, a.request("get-long " + id + " 0"));
        ok("VALUE " + 2L * INCREMENTS, b.request("get-long " + id + " 0"));
    }

    @Test
    void shouldMarkTheSegmentOfAKilledCreatorAndReclaimItAfterTheSurvivorDetaches() throws Exception {
        NodeProcess node = resources.node("kill");
        ClientProcess creator = resources.client(node);
        ClientProcess survivor = resources.client(node);
        long page = page(creator);
        long id = segmentId(creator.request("create " + 4 * page));
        ok("ATTACHED " + id, creator.request("attach " + id));
        ok("WROTE", creator.request("write " + id + " 5 0 " + 4 * page));
        ok("ATTACHED " + id, survivor.request("attach " + id));
        ok("VERIFIED", survivor.request("verify " + id + " 5 0 " + 4 * page));
        assertTrue(survivor.request("status " + id).startsWith("STATUS ACTIVE 2 " + 4 * page + " " + creator.pid()));

        creator.kill();
        String status = awaitStatus(survivor, id, "STATUS MARKED_FOR_DELETION ");
        assertTrue(status.startsWith("STATUS MARKED_FOR_DELETION 1 "), "only the survivor's attach is left: " + status);
        ok("VERIFIED", survivor.request("verify " + id + " 5 0 " + 4 * page));
        ok("OK", survivor.request("put-long " + id + " 0 77"));
        ok("VALUE 77", survivor.request("get-long " + id + " 0"));
        assertTrue(Files.exists(node.segmentFile(id)), "a marked segment lives while attached");

        assertTrue(survivor.request("attach " + id).startsWith("ERROR INVAL INVAL"), "no new attach of a marked segment");
        ClientProcess newcomer = resources.client(node);
        assertTrue(newcomer.request("attach " + id).startsWith("ERROR INVAL INVAL"));

        ok("DETACHED", survivor.request("detach " + id));
        assertTrue(NodeProcess.awaitGone(node.segmentFile(id), Duration.ofSeconds(5)),
            "the last detach removes the segment file");
        assertTrue(survivor.request("status " + id).startsWith("ERROR INVAL INVAL"), "the segment is gone");
    }

    private static String awaitStatus(ClientProcess c, long id, String prefix) {
        Deadline deadline = Deadline.in(Duration.ofSeconds(10));
        String status;
        for (int i = 0; i < 1000; i++) {
            status = c.request("status " + id);
            if (status.startsWith(prefix) || deadline.expired()) {
                assertTrue(status.startsWith(prefix), status);
                return status;
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
        throw new AssertionError("segment " + id + " never reached " + prefix);
    }

    @Test
    void shouldKeepAReservationAfterItsCreatorProcessDies() throws Exception {
        NodeProcess node = resources.node("rsv");
        ClientProcess creator = resources.client(node);
        long page = page(creator);
        String[] r = creator.request("reserve " + 16 * page).split(" ");
        assertEquals("RESERVATION", r[0]);
        long key = Long.parseLong(r[1]);
        creator.kill();

        ClientProcess user = resources.client(node);
        ok("OK", user.request("reserve-set " + key));
        segmentId(user.request("create " + page));
        ok("RESERVATION " + key + " " + 16 * page + " " + page, user.request("reserve " + 16 * page));
        ok("OK", user.request("reserve-del"));
        assertTrue(user.request("reserve-set " + key).startsWith("ERROR INVAL INVAL"), "deleted");
    }

    @Test
    void shouldEnforceTheBreakOfAnExtensibleSegmentInEveryProcess() throws Exception {
        NodeProcess node = resources.node("brk");
        ClientProcess creator = resources.client(node);
        ClientProcess other = resources.client(node);
        long page = page(creator);
        long id = segmentId(creator.request("create " + 16 * page + " EXTENSIBLE"));
        ok("ATTACHED " + id, creator.request("attach " + id));
        ok("OK", creator.request("break " + id + " " + 8 * page));
        ok("WROTE", creator.request("write " + id + " 9 0 " + 8 * page));

        ok("ATTACHED " + id, other.request("attach " + id));
        ok("VERIFIED", other.request("verify " + id + " 9 0 " + 8 * page));
        ok("ACCESS_ERROR SEG_BRK " + id + " " + 8 * page, other.request("get-long " + id + " " + 8 * page));
        assertTrue(other.request("break " + id + " " + 16 * page).startsWith("ERROR PERM PERM"),
            "only the creator moves the break");
        assertTrue(other.request("remove " + id).startsWith("ERROR PERM PERM"), "only the creator removes");

        ok("OK", creator.request("break " + id + " " + 4 * page));
        ok("ACCESS_ERROR SEG_BRK " + id + " " + 4 * page, other.request("get-long " + id + " " + 4 * page));
        ok("VERIFIED", other.request("verify " + id + " 9 0 " + 4 * page));
        ok("OK", creator.request("break " + id + " " + 8 * page));
        ok("VERIFIED", other.request("zero " + id + " " + 4 * page + " " + 4 * page));
    }

    @Test
    void shouldLetAnotherProcessJoinTheEmbeddedNode() throws Exception {
        assumeTrue(System.getenv("SOFTCMI_NODE") == null && System.getProperty("softcmi.node") == null,
            "this JVM uses a daemon, not the embedded node");
        try (CmiContext ctx = Cmi.init(Cmi.LIBRARY_VERSION)) {
            ctx.enable(true);
            Path dir = EmbeddedNode.directory();
            assertTrue(dir != null && Files.exists(dir.resolve("cmid.sock")), "the embedded node serves " + dir);
            long page = ctx.ctlInfo().protUnits();
            CmiSegment seg = ctx.segGet(2 * page, Set.of());
            CmiMapping m = ctx.segAt(seg, Set.of());
            for (long off = 0; off < 2 * page; off++) {
                m.putByte(off, Workers.pattern(4, off));
            }
            ClientProcess child = resources.client(dir);
            ok("ATTACHED " + seg.id(), child.request("attach " + seg.id()));
            ok("VERIFIED", child.request("verify " + seg.id() + " 4 0 " + 2 * page));
            ok("OK", child.request("put-long " + seg.id() + " 0 31"));
            assertEquals(31, m.getLong(0));
            assertEquals(0, child.exit());
            ctx.segDt(m);
            ctx.segRemove(seg);
            assertFalse(Files.exists(EmbeddedNode.start().config().shmDirectory().resolve("seg-" + seg.id())));
        }
    }
}
