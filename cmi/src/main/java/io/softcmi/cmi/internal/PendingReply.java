package io.softcmi.cmi.internal;

import io.softcmi.wire.ControlMessage;
import java.util.concurrent.CompletableFuture;

/** A control call's reply ({@link NodeChannel}), and when it was read off the socket, by whichever thread. */
final class PendingReply extends CompletableFuture<ControlMessage> {
    /** {@link System#nanoTime} when the reply was read; set before completion. */
    volatile long arrivedAt;
}
