package io.softcmi.cmi.internal;

import io.softcmi.wire.ControlMessage;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link NodeChannel} caller's reply to come, its header flags, and whether its caller's poll
 * took it ({@link ControlReplyCounts}).
 */
final class PendingReply extends CompletableFuture<ControlMessage> {
    /** Written before {@link #complete}, read after the reply is taken. */
    int nodeFlags;
    /** Set by the caller when its poll found the reply in (counted as a hit then). */
    boolean caught;
}
