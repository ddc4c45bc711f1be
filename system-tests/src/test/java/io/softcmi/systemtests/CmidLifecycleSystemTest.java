package io.softcmi.systemtests;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The node daemon's own life: one daemon per directory, and a clean SIGTERM that removes its
 * files and tells its clients.
 */
@Timeout(120)
class CmidLifecycleSystemTest {
    @RegisterExtension
    final SystemTestResources resources = SystemTestResources.perTest();

    @Test
    void shouldRefuseASecondDaemonOnTheSameDirectory() throws Exception {
        NodeProcess first = resources.node("first");
        NodeProcess second = resources.own(NodeProcess.launch(resources.logDir(), "second", first.directory(), false));
        assertEquals(1, second.awaitExit(Duration.ofSeconds(30)), "the second cmid exits with status 1");

        assertTrue(first.isAlive());
        assertTrue(Files.exists(first.socket()) && Files.exists(first.lockFile()), "the first keeps its socket and lock");
        ClientProcess client = resources.client(first);
        assertTrue(client.request("info").startsWith("INFO "), "the first still serves");
    }

    @Test
    void shouldRemoveItsFilesOnSigtermAndFailClientsWithInit() throws Exception {
        NodeProcess node = resources.node("term");
        ClientProcess client = resources.client(node);
        String[] info = client.request("info").split(" ");
        long page = Long.parseLong(info[2]);
        String created = client.request("create " + page);
        long id = Long.parseLong(created.substring("SEGMENT ".length()));
        assertEquals("ATTACHED " + id, client.request("attach " + id));
        assertTrue(Files.exists(node.segmentFile(id)));
        assertTrue(Files.exists(node.socket()) && Files.exists(node.lockFile()));

        node.stop();
        assertEquals(List.of(), node.leftovers(), "socket, lock and shared-memory directory are removed");

        assertTrue(client.request("info").startsWith("ERROR INIT INIT"), "the context fails with INIT");
        assertTrue(client.request("create " + page).startsWith("ERROR INIT INIT"));
        assertEquals(0, client.exit());
        String log = Files.readString(client.log());
        assertTrue(log.contains("shutting down"), "the client was told the node shuts down:\n" + log);
    }
}
