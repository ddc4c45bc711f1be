package io.softcmi.systemtests;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CMI across nodes with real processes (issue 3, "Tests"): three daemons A, B and C on loopback
 * sharing a cluster key, and worker processes on each ({@code a} on A, {@code b} and {@code b2} on
 * B, {@code c} on C). Segments are created and exported on A and imported on B and C; handles,
 * tokens and node addresses go from process to process as bytes (hex on the workers' stdin and
 * stdout), never through shared objects.
 */
@Timeout(120)
class CrossNodeCmiTest {
    private static final String ALL_RIGHTS = "READ,WRITE,ATOMIC";
    private static final long PAGE = 4096;

    @RegisterExtension
    static final SystemTestResources RESOURCES = SystemTestResources.perClass();

    private static ClientProcess a;
    private static ClientProcess b;
    private static ClientProcess b2;
    private static ClientProcess c;
    private static String addressB;
    private static String addressC;

    @BeforeAll
    @Timeout(90)
    static void startCluster() throws IOException {
        ClusterNodes cluster = ClusterNodes.create(RESOURCES);
        List<NodeProcess> nodes = cluster.start("A", "B", "C");
        List<ClientProcess> workers = cluster.clients(nodes.get(0), nodes.get(1), nodes.get(1), nodes.get(2));
        a = workers.get(0);
        b = workers.get(1);
        b2 = workers.get(2);
        c = workers.get(3);
        addressB = b.expect("node", "NODE");
        addressC = c.expect("node", "NODE");
        assertEquals(addressB, b2.expect("node", "NODE"), "two processes of node B name the same node");
        assertNotEquals(addressB, addressC);
        assertNotEquals(addressB, a.expect("node", "NODE"));
    }

    /** A segment created, attached and exported by {@code a} on node A. */
    private record Exported(long id, String handle) {
    }

    private static Exported exportFromA(long size, boolean writeThrough) {
        long id = Long.parseLong(a.expect("create " + size, "SEGMENT"));
        a.expect("attach " + id, "ATTACHED");
        String handle = a.expect("export " + id + (writeThrough ? " WRITE_THROUGH" : ""), "HANDLE");
        return new Exported(id, handle);
    }

    /** Imports on the worker's node, sets the token and attaches; returns the proxy id. */
    private static long importAndAttach(ClientProcess w, String handle, String token) {
        String[] proxy = w.expect("import " + handle, "PROXY").split(" ");
        assertEquals("true", proxy[1], "a proxy segment is imported()");
        long proxyId = Long.parseLong(proxy[0]);
        w.expect("set-token " + proxyId + " " + token, "OK");
        w.expect("attach " + proxyId, "ATTACHED");
        return proxyId;
    }

    @Test
    void shouldShareDataWrittenOnAnyNodeWithProcessesOnTheOtherNodes() {
        // Larger than one data-path chunk (1 MiB), so bulk transfers are split.
        long size = (1 << 20) + 2 * PAGE;
        Exported seg = exportFromA(size, false);
        String tokenB = a.expect("token " + seg.id + " " + addressB + " " + ALL_RIGHTS, "TOKEN");
        String tokenC = a.expect("token " + seg.id + " " + addressC + " READ,WRITE", "TOKEN");
        long onB = importAndAttach(b, seg.handle, tokenB);
        long onC = importAndAttach(c, seg.handle, tokenC);

        // Written on A (its own mapping), read on B and C.
        a.expect("fill " + seg.id + " 0 " + size + " 1", "OK");
        assertEquals("VERIFIED", b.request("check " + onB + " 0 " + size + " 1"));
        assertEquals("VERIFIED", c.request("check " + onC + " 0 " + size + " 1"));

        // Written on B, seen on A and C; what B did not write is untouched.
        b.expect("fill " + onB + " " + PAGE + " " + 2 * PAGE + " 2", "OK");
        assertEquals("VERIFIED", a.request("check " + seg.id + " " + PAGE + " " + 2 * PAGE + " 2"));
        assertEquals("VERIFIED", c.request("check " + onC + " " + PAGE + " " + 2 * PAGE + " 2"));
        assertEquals("VERIFIED", c.request("check " + onC + " 0 " + PAGE + " 1"));
        assertEquals("VERIFIED", a.request("check " + seg.id + " " + 3 * PAGE + " " + (size - 3 * PAGE) + " 1"));

        // A bulk store from C across the chunk boundary, and single words from C and B.
        long across = (1 << 20) - PAGE;
        c.expect("fill " + onC + " " + across + " " + 2 * PAGE + " 3", "OK");
        assertEquals("VERIFIED", a.request("check " + seg.id + " " + across + " " + 2 * PAGE + " 3"));
        assertEquals("VERIFIED", b.request("check " + onB + " " + across + " " + 2 * PAGE + " 3"));
        long last = size - 8;
        c.expect("put-long " + onC + " " + last + " -81985529216486896", "OK");
        assertEquals("-81985529216486896", a.expect("get-long " + seg.id + " " + last, "VALUE"));
        assertEquals("-81985529216486896", b.expect("get-long " + onB + " " + last, "VALUE"));
        b.expect("put-long " + onB + " 0 4242", "OK");
        assertEquals("4242", a.expect("get-long " + seg.id + " 0", "VALUE"));
        assertEquals("4242", c.expect("get-long " + onC + " 0", "VALUE"));
    }

    @Test
    void shouldServeWriteThroughImportsLikeCachedOnes() {
        Exported seg = exportFromA(4 * PAGE, true);
        String token = a.expect("token " + seg.id + " ANY READ,WRITE", "TOKEN");
        long onB = importAndAttach(b, seg.handle, token);
        long onC = importAndAttach(c, seg.handle, token);
        b.expect("fill " + onB + " 0 " + 4 * PAGE + " 7", "OK");
        assertEquals("VERIFIED", a.request("check " + seg.id + " 0 " + 4 * PAGE + " 7"));
        assertEquals("VERIFIED", c.request("check " + onC + " 0 " + 4 * PAGE + " 7"));
    }

    @Test
    void shouldLetOtherProcessesOfTheImportingNodeUseTheProxyWithTheImportersToken() {
        Exported seg = exportFromA(2 * PAGE, false);
        a.expect("put-long " + seg.id + " 0 99", "OK");
        String tokenB = a.expect("token " + seg.id + " " + addressB + " READ,WRITE", "TOKEN");
        long onB = importAndAttach(b, seg.handle, tokenB);

        // The proxy id has node scope: b2 finds and attaches it, and uses b's token.
        assertEquals(onB + " true " + 2 * PAGE, b2.expect("lookup " + onB, "SEGMENT"));
        b2.expect("attach " + onB, "ATTACHED");
        assertEquals("99", b2.expect("get-long " + onB + " 0", "VALUE"));
        b2.expect("put-long " + onB + " 8 77", "OK");
        assertEquals("77", a.expect("get-long " + seg.id + " 8", "VALUE"));

        // Only the importer sets the token.
        assertTrue(b2.request("set-token " + onB + " " + tokenB).startsWith("ERROR PERM PERM"),
            "segSetToken by a process that did not import");

        // The importer replaces the token with a read-only one: its own next store fails at once,
        // b2's as soon as the node's notice reached it.
        String readOnly = a.expect("token " + seg.id + " ANY READ", "TOKEN");
        b.expect("set-token " + onB + " " + readOnly, "OK");
        assertEquals("ACCESS_ERROR PERM " + onB + " 16", b.request("put-long " + onB + " 16 1"));
        awaitReply(b2, "put-long " + onB + " 24 1", "ACCESS_ERROR PERM " + onB + " 24", Duration.ofSeconds(10));
        assertEquals("77", b2.expect("get-long " + onB + " 8", "VALUE"));
        assertEquals("0", a.expect("get-long " + seg.id + " 16", "VALUE"), "refused stores do not land");
    }

    @Test
    void shouldRevokeATokenOnTheNextAccessOfEveryProcessUsingIt() {
        // Write-through, so that every access goes to the home; a cached import meets the
        // revocation at its next miss, acquire or write-back (docs/cache.md).
        Exported seg = exportFromA(PAGE, true);
        String tokenB = a.expect("token " + seg.id + " " + addressB + " READ,WRITE", "TOKEN");
        String tokenC = a.expect("token " + seg.id + " " + addressC + " READ,WRITE", "TOKEN");
        long onB = importAndAttach(b, seg.handle, tokenB);
        long onC = importAndAttach(c, seg.handle, tokenC);
        b2.expect("attach " + onB, "ATTACHED");
        b.expect("put-long " + onB + " 24 5", "OK");
        assertEquals("5", b2.expect("get-long " + onB + " 24", "VALUE"));

        a.expect("tok-del " + tokenB, "OK");
        assertEquals("ACCESS_ERROR TOKEN " + onB + " 24", b.request("get-long " + onB + " 24"));
        assertEquals("ACCESS_ERROR TOKEN " + onB + " 32", b2.request("put-long " + onB + " 32 1"));
        assertEquals("5", c.expect("get-long " + onC + " 24", "VALUE"), "C's token is another one");
        assertTrue(a.request("tok-del " + tokenB).startsWith("ERROR INVAL INVAL"), "a token is revoked once");

        // A new token for B brings access back.
        String again = a.expect("token " + seg.id + " " + addressB + " READ", "TOKEN");
        b.expect("set-token " + onB + " " + again, "OK");
        assertEquals("5", b.expect("get-long " + onB + " 24", "VALUE"));
    }

    @Test
    void shouldCountExactlyWhenProcessesOnThreeNodesIncrementOneCounterWithAtmCas() {
        long perProcess = 4_000;
        Exported seg = exportFromA(PAGE, false);
        String tokenB = a.expect("token " + seg.id + " " + addressB + " " + ALL_RIGHTS, "TOKEN");
        String tokenC = a.expect("token " + seg.id + " " + addressC + " " + ALL_RIGHTS, "TOKEN");
        long onB = importAndAttach(b, seg.handle, tokenB);
        long onC = importAndAttach(c, seg.handle, tokenC);
        b2.expect("attach " + onB, "ATTACHED");

        // a works on its own mapping of the segment, b, b2 and c at the home through their imports.
        List<ClientProcess> workers = List.of(a, b, b2, c);
        List<Long> ids = List.of(seg.id, onB, onB, onC);
        for (int i = 0; i < workers.size(); i++) {
            workers.get(i).send("cas-count " + ids.get(i) + " 0 " + perProcess + " 64 " + workers.size());
        }
        long failures = 0;
        for (ClientProcess w : workers) {
            String reply = w.awaitReply(Duration.ofSeconds(100));
            assertTrue(reply.startsWith("DONE " + perProcess + " "), () -> w.name() + ": " + reply);
            failures += Long.parseLong(reply.split(" ")[2]);
        }
        String total = Long.toString(perProcess * workers.size());
        assertEquals(total, a.expect("get-long " + seg.id + " 0", "VALUE"));
        assertEquals(total, c.expect("get-long " + onC + " 0", "VALUE"));
        System.out.println("atm_cas counter: " + total + " increments, " + failures + " failed CAS");
    }

    private static void awaitReply(ClientProcess w, String command, String expected, Duration timeout) {
        Deadline deadline = Deadline.in(timeout);
        String reply;
        while (!(reply = w.request(command)).equals(expected)) {
            if (deadline.expired()) {
                throw new AssertionError(w.name() + ": '" + command + "' still answers '" + reply + "' after "
                    + timeout + ", expected '" + expected + "'");
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
        }
    }
}
