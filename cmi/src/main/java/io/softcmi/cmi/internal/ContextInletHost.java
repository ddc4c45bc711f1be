package io.softcmi.cmi.internal;

import io.softcmi.cmi.internal.direct.InletHost;
import io.softcmi.cmi.notify.Notification;

/** What direct delivery ({@code io.softcmi.cmi.internal.direct}) needs of one context. */
final class ContextInletHost implements InletHost {
    private final ContextImpl context;

    ContextInletHost(ContextImpl context) {
        this.context = context;
    }

    @Override
    public void deliver(Notification n) {
        context.notifications().deliver(n);
    }

    @Override
    public void bindHandlerThread() {
        context.bindHandlerThread();
    }

    @Override
    public String listenHost() {
        return context.nodeAddress() instanceof NodeAddressImpl a && !a.host().isEmpty() ? a.host() : "127.0.0.1";
    }

    @Override
    public byte[] nodeAddress() {
        return context.nodeAddress().toBytes();
    }

    @Override
    public long remoteTimeoutNanos() {
        return context.reconfTimeout().toNanos();
    }

    @Override
    public String name() {
        return Long.toString(context.sessionId());
    }

    @Override
    public boolean plainTcp() {
        return context.plainTcp();
    }

    @Override
    public void warn(String message) {
        context.warn(message);
    }
}
