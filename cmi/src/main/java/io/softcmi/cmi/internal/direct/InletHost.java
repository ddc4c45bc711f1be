package io.softcmi.cmi.internal.direct;

import io.softcmi.cmi.notify.Notification;

/**
 * What direct delivery needs of the context it serves (implemented by the engine's context):
 * where to hand notifications, how to bind its thread, its node, its remote timeout and whether
 * its node speaks plain TCP.
 */
public interface InletHost {
    /** Hands a notification to the context's inbox (inline handlers run on the calling thread). */
    void deliver(Notification n);

    /** Associates the calling thread (the inlet thread) with the context and enables remote access on it. */
    void bindHandlerThread();

    /** @return the address an inlet listens on: the host of the node's data address */
    String listenHost();

    /** @return the context's node address, as bytes (sent with each OPEN, for {@code Notification.sender()}) */
    byte[] nodeAddress();

    /** @return the context's remote timeout ({@code CMI_CTL_RECONF_TOUT}) in nanoseconds */
    long remoteTimeoutNanos();

    /** @return a name for the inlet thread (the context's session) */
    String name();

    /** @return whether the node speaks plain TCP to other nodes (asks it the first time) */
    boolean plainTcp();

    /** Logs a warning in the context's trace. */
    void warn(String message);

    /**
     * The most connections other processes may hold open to the inlet port at once (system
     * property {@code softcmi.direct.maxConnections}, 1024): beyond it the oldest that has not said
     * HELLO is dropped for a new one, and a new one is refused when every one has.
     *
     * @return the bound, at least 1
     */
    default int maxAcceptedConnections() {
        return Math.max(1, Integer.getInteger("softcmi.direct.maxConnections", 1024));
    }

    /**
     * How long a connection another process opened may take to say HELLO before it is dropped
     * (system property {@code softcmi.direct.helloTimeoutMs}, 5000 ms). A route's process says it
     * as it connects.
     *
     * @return the bound in nanoseconds
     */
    default long helloTimeoutNanos() {
        return java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(Math.max(1, Long.getLong("softcmi.direct.helloTimeoutMs", 5000)));
    }
}
