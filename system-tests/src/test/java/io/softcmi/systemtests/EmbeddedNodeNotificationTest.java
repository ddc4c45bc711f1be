package io.softcmi.systemtests;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.BeforeAll;

/** {@link AbstractSingleNodeNotificationTest} on the embedded node ({@code Cmi.init} without a daemon). */
class EmbeddedNodeNotificationTest extends AbstractSingleNodeNotificationTest {

    @BeforeAll
    static void useTheEmbeddedNode() {
        assumeTrue(System.getenv("SOFTCMI_NODE") == null, "SOFTCMI_NODE names a daemon; the embedded node is not used");
        System.clearProperty("softcmi.node");
    }

    @Override
    protected ContextThread newContext(String name) {
        return ContextThread.open(name);
    }
}
