package io.softcmi.cmi.internal;

import io.softcmi.cmi.CmiError;
import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.Frame;
import io.softcmi.wire.FrameIO;
import io.softcmi.wire.MessageType;
import io.softcmi.wire.WireFormatException;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A process's control connection to its node daemon over the node's Unix-domain socket.
 *
 * <p>Callers on any thread send a request and wait for the reply with the same correlation id;
 * one reader thread completes replies and hands notices (events, shutdown) to a listener in the
 * order the node sent them. The connection's lifetime is the context's: when it closes, for any
 * reason, the node applies the lifetime rules of a process that exited.
 */
public final class NodeChannel implements AutoCloseable {
    /** Name of the control socket in a node directory. */
    public static final String SOCKET_NAME = "cmid.sock";
    private static final long REPLY_TIMEOUT_SECONDS = 60;
    private static final long SPIN_NANOS = 50_000;

    private final SocketChannel channel;
    private final Object writeLock = new Object();
    private final AtomicLong nextCorrelationId = new AtomicLong();
    private final Map<Long, CompletableFuture<ControlMessage>> pending = new ConcurrentHashMap<>();
    private final Thread reader;
    private volatile Consumer<ControlMessage> noticeListener = m -> { };
    private volatile Runnable closeListener = () -> { };
    private volatile String closedReason;

    private NodeChannel(SocketChannel channel) {
        this.channel = channel;
        this.reader = Thread.ofPlatform().daemon().name("softcmi-node-reader").unstarted(this::readLoop);
    }

    /**
     * Connects to the node daemon serving {@code nodeDirectory}.
     *
     * @param nodeDirectory the daemon's {@code --dir}
     * @return the connected channel, its reader running
     * @throws io.softcmi.cmi.CmiException INIT if no daemon answers there
     */
    public static NodeChannel connect(Path nodeDirectory) {
        Path socket = nodeDirectory.resolve(SOCKET_NAME);
        try {
            SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
            try {
                ch.connect(UnixDomainSocketAddress.of(socket));
            } catch (IOException e) {
                ch.close();
                throw e;
            }
            NodeChannel nc = new NodeChannel(ch);
            nc.reader.start();
            return nc;
        } catch (IOException e) {
            throw Errors.fail(CmiError.INIT, "no CMI node daemon at " + socket + ": " + e.getMessage());
        }
    }

    /**
     * Sets who hears notices; the node sends none before the session's Hello is answered.
     *
     * @param onNotice receives events and shutdown notices, on the reader thread
     * @param onClose runs once when the connection ends
     */
    public void listen(Consumer<ControlMessage> onNotice, Runnable onClose) {
        this.noticeListener = onNotice;
        this.closeListener = onClose;
    }

    /**
     * Sends a request and waits for its reply. An {@link ControlMessage.ErrorReply} becomes a
     * {@code CmiException} with the node's error code.
     *
     * @param request the request
     * @param replyType the reply class expected
     * @param <T> the reply type
     * @return the reply
     */
    public <T extends ControlMessage> T call(ControlMessage request, Class<T> replyType) {
        ControlMessage reply = send(request);
        if (reply instanceof ControlMessage.ErrorReply e) {
            CmiError[] codes = CmiError.values();
            CmiError code = e.code() >= 0 && e.code() < codes.length ? codes[e.code()] : CmiError.INVAL;
            throw Errors.fail(code, e.message());
        }
        if (!replyType.isInstance(reply)) {
            throw Errors.fail(CmiError.INVAL, "node answered " + reply.type() + " to " + request.type());
        }
        return replyType.cast(reply);
    }

    /**
     * Sends a one-way message (correlation id 0): the node answers nothing, so the caller only
     * waits for the socket write. Used by the notification extension.
     *
     * @param message the message
     * @throws io.softcmi.cmi.CmiException INIT if the connection is closed or fails
     */
    public void sendOneWay(ControlMessage message) {
        if (closedReason != null) {
            throw Errors.fail(CmiError.INIT, "connection to the node is closed: " + closedReason);
        }
        Frame frame = MessageType.toFrame(message, 0);
        try {
            synchronized (writeLock) {
                FrameIO.write(channel, frame);
            }
        } catch (IOException e) {
            throw Errors.fail(CmiError.INIT, "connection to the node failed: " + e.getMessage());
        }
    }

    private ControlMessage send(ControlMessage request) {
        if (closedReason != null) {
            throw Errors.fail(CmiError.INIT, "connection to the node is closed: " + closedReason);
        }
        long id = nextCorrelationId.incrementAndGet();
        CompletableFuture<ControlMessage> reply = new CompletableFuture<>();
        pending.put(id, reply);
        try {
            Frame frame = MessageType.toFrame(request, id);
            synchronized (writeLock) {
                FrameIO.write(channel, frame);
            }
            // Poll briefly before parking: waking a parked thread costs ~100 us on small VMs.
            long spinUntil = System.nanoTime() + SPIN_NANOS;
            while (!reply.isDone() && System.nanoTime() < spinUntil) {
                Thread.onSpinWait();
            }
            return reply.get(REPLY_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (IOException e) {
            throw Errors.fail(CmiError.INIT, "connection to the node failed: " + e.getMessage());
        } catch (ExecutionException e) {
            throw Errors.fail(CmiError.INIT, "connection to the node closed: " + e.getCause().getMessage());
        } catch (TimeoutException e) {
            throw Errors.fail(CmiError.INIT, "node did not answer " + request.type() + " in " + REPLY_TIMEOUT_SECONDS + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw Errors.fail(CmiError.INIT, "interrupted waiting for the node");
        } finally {
            pending.remove(id);
        }
    }

    private void readLoop() {
        String reason = "node closed the connection";
        try {
            while (true) {
                Frame frame = FrameIO.read(channel);
                if (frame == null) {
                    break;
                }
                ControlMessage message = MessageType.decode(frame);
                if (frame.correlationId() == 0) {
                    noticeListener.accept(message);
                } else {
                    CompletableFuture<ControlMessage> f = pending.get(frame.correlationId());
                    if (f != null) {
                        f.complete(message);
                    }
                }
            }
        } catch (IOException | WireFormatException e) {
            reason = e.getMessage();
        } finally {
            closedReason = reason;
            IOException cause = new IOException(reason);
            pending.values().forEach(f -> f.completeExceptionally(cause));
            closeQuietly();
            closeListener.run();
        }
    }

    /** @return whether the connection has ended */
    public boolean isClosed() {
        return closedReason != null;
    }

    /** Closes the connection; the node treats this as the context ending. */
    @Override
    public void close() {
        closeQuietly();
    }

    private void closeQuietly() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // Closing a Unix socket whose peer is gone cannot fail in a way the caller can act on.
        }
    }
}
