package io.softcmi.systemtests;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link AbstractSingleNodeCmiTest} against a real {@code cmid} in another process: the test JVM
 * joins it through the system property {@code softcmi.node} (what {@code SOFTCMI_NODE} does for
 * other processes). The daemon gets 64 MiB of CMI memory, so the memory limits are small and
 * real.
 */
class DaemonNodeCmiTest extends AbstractSingleNodeCmiTest {
    @RegisterExtension
    static final SystemTestResources RESOURCES = SystemTestResources.perClass();

    private static NodeProcess node;

    @BeforeAll
    static void startDaemon() throws Exception {
        node = RESOURCES.node("suite", "--memory", Long.toString(64L << 20));
        System.setProperty("softcmi.node", node.directory().toString());
    }

    @AfterAll
    static void stopDaemon() throws java.io.IOException {
        System.clearProperty("softcmi.node");
        if (node != null) {
            assertEquals(0L, node.awaitNoSegmentFiles(java.time.Duration.ofSeconds(10)), "contexts of the suite are closed, so their segments are gone");
            node.stop();
            assertEquals(java.util.List.of(), node.leftovers(), "SIGTERM removes socket, lock and segment files");
        }
    }

    @Override
    protected Path shmDirectory() {
        return node.shmDirectory();
    }
}
