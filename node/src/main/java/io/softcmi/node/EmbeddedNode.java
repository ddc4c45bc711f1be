package io.softcmi.node;

import io.softcmi.cmi.internal.EmbeddedNodeLauncher;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The embedded default: a node running inside this JVM, started by the first {@code Cmi.init}
 * that finds no {@code SOFTCMI_NODE}. It is a full node with a control socket in a private
 * temporary directory, so other processes can join it ({@code SOFTCMI_NODE=}{@link #directory()}),
 * and it is shut down, its files removed, when the JVM exits.
 */
public final class EmbeddedNode implements EmbeddedNodeLauncher {
    private static NodeDaemon running;

    /** Used by {@link java.util.ServiceLoader}. */
    public EmbeddedNode() {
    }

    @Override
    public Path ensureStarted() {
        return start().config().directory();
    }

    /**
     * Starts this JVM's embedded node unless it runs already.
     *
     * @return the node
     */
    public static synchronized NodeDaemon start() {
        if (running == null) {
            try {
                Path dir = Files.createTempDirectory("softcmi-embedded-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                NodeDaemon node = NodeDaemon.start(new NodeConfig().directory(dir).name("embedded-"
                    + ProcessHandle.current().pid()));
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    node.close();
                    try {
                        NodeDaemon.deleteTree(dir);
                    } catch (IOException ignored) {
                        // Exiting anyway; a temp directory left behind is harmless.
                    }
                }, "softcmi-embedded-shutdown"));
                running = node;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start the embedded CMI node", e);
            }
        }
        return running;
    }

    /** @return the embedded node's directory, for {@code SOFTCMI_NODE} of child processes; null if not started */
    public static synchronized Path directory() {
        return running == null ? null : running.config().directory();
    }
}
