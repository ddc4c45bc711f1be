package io.softcmi.systemtests;

import io.softcmi.node.EmbeddedNode;
import org.junit.jupiter.api.BeforeAll;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@link AbstractSingleNodeCmiTest} on the embedded default: no {@code SOFTCMI_NODE}, so
 * {@code Cmi.init} starts a node inside this JVM.
 */
class EmbeddedNodeCmiTest extends AbstractSingleNodeCmiTest {

    @BeforeAll
    static void useTheEmbeddedNode() {
        assumeTrue(System.getenv("SOFTCMI_NODE") == null, "SOFTCMI_NODE names a daemon; the embedded node is not used");
        System.clearProperty("softcmi.node");
    }

    @Override
    protected Path shmDirectory() {
        return EmbeddedNode.start().config().shmDirectory();
    }
}
