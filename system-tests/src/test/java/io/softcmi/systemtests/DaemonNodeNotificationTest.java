package io.softcmi.systemtests;

import java.io.IOException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link AbstractSingleNodeNotificationTest} on a {@code cmid} daemon in a process of its own. */
class DaemonNodeNotificationTest extends AbstractSingleNodeNotificationTest {
    @RegisterExtension
    static final SystemTestResources RESOURCES = SystemTestResources.perClass();

    private static NodeProcess node;

    @BeforeAll
    static void startDaemon() throws IOException {
        node = ClusterNodes.create(RESOURCES).start("N").get(0);
    }

    @Override
    protected ContextThread newContext(String name) {
        return ClusterNodes.openContext(node, name);
    }
}
