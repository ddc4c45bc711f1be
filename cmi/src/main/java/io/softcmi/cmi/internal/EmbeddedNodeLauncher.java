package io.softcmi.cmi.internal;

import java.nio.file.Path;

/**
 * Service interface through which {@code Cmi.init} starts the embedded default node when no
 * daemon is configured. The node module provides it ({@code META-INF/services}); the client
 * library then talks to the embedded node through its control socket like to any daemon, so
 * other processes can join it too.
 */
public interface EmbeddedNodeLauncher {
    /**
     * Starts this JVM's embedded node if it is not running yet.
     *
     * @return the node directory (holding its control socket)
     */
    Path ensureStarted();
}
