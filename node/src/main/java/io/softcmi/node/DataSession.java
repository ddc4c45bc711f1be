package io.softcmi.node;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.CmiAccessError;
import io.softcmi.wire.DataProtocol;
import io.softcmi.wire.WireFormatException;
import java.io.EOFException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Arrays;

/**
 * The home side of one process's remote data connection ({@link DataProtocol}): loads, stores
 * and CAS on this node's exported segments, each checked against the token and the node the
 * process's ticket proves, then done on the daemon's mapping of the segment file.
 *
 * <p>One platform thread per connection; it polls the socket with an {@link IdleStrategy}
 * (spin, yield, then block) so a request in a burst is picked up in microseconds while an idle
 * connection costs nothing. No lock is taken: tokens and targets are read from concurrent maps.
 */
final class DataSession implements Runnable {
    private static final System.Logger LOG = System.getLogger("io.softcmi.node");
    private static final VarHandle ATOMIC_LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final Access[] OP_ACCESS = {null, null, Access.READ, Access.WRITE, Access.ATOMIC, Access.WRITE};

    private final SocketChannel channel;
    private final NodeState state;
    private final ByteBuffer in = DataProtocol.newBuffer();
    private final ByteBuffer out = DataProtocol.newBuffer();
    private final IdleStrategy idle = new IdleStrategy(100_000, 2_000_000);
    private byte[] clientNode;

    DataSession(SocketChannel channel, NodeState state) {
        this.channel = channel;
        this.state = state;
    }

    /**
     * Reads the session's first request, which must be a HELLO with a valid node ticket, in
     * blocking mode (an unauthenticated connection costs no CPU) and within {@code timeoutMs}.
     *
     * @param timeoutMs deadline
     * @return whether the session may go on
     */
    boolean authenticate(long timeoutMs) {
        Thread reader = Thread.currentThread();
        Thread watchdog = Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(timeoutMs);
                LOG.log(Level.WARNING, "closing a data connection that did not authenticate in time");
                channel.close();
            } catch (InterruptedException | IOException done) {
                // Authenticated (or failed) in time.
            }
        });
        try {
            channel.socket().setTcpNoDelay(true);
            in.clear().limit(DataProtocol.REQUEST_HEADER);
            if (!readBlocking()) {
                return false;
            }
            int payload = DataProtocol.requestPayload(in.getInt(0));
            long requestId = in.getLong(8);
            if (in.get(4) != DataProtocol.OP_HELLO || payload > in.capacity() - DataProtocol.REQUEST_HEADER) {
                return false;
            }
            in.limit(DataProtocol.REQUEST_HEADER + payload);
            if (!readBlocking()) {
                return false;
            }
            byte[] ticket = new byte[payload];
            in.get(DataProtocol.REQUEST_HEADER, ticket);
            clientNode = state.clusterKey.verifyTicket(ticket);
            if (clientNode == null) {
                LOG.log(Level.WARNING, "refused a data connection from {0}: its node ticket is not valid here",
                    channel.socket().getRemoteSocketAddress());
                reply(DataProtocol.STATUS_MALFORMED, requestId, 0, 0);
                return false;
            }
            reply(DataProtocol.STATUS_OK, requestId, 0, 0);
            return true;
        } catch (IOException | WireFormatException e) {
            return false;
        } finally {
            watchdog.interrupt();
        }
    }

    private boolean readBlocking() throws IOException {
        while (in.hasRemaining()) {
            if (channel.read(in) < 0) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void run() {
        try (channel) {
            channel.configureBlocking(false);
            while (true) {
                in.clear().limit(4);
                if (!fill(in, true)) {
                    return;
                }
                int payload = DataProtocol.requestPayload(in.getInt(0));
                in.limit(DataProtocol.REQUEST_HEADER);
                fill(in, false);
                if (!serve(payload)) {
                    return;
                }
            }
        } catch (IOException | WireFormatException e) {
            LOG.log(Level.DEBUG, "data connection ended: {0}", e.getMessage());
        }
    }

    /** Serves the request in {@code in}; false to close the connection. */
    private boolean serve(int payload) throws IOException {
        byte op = in.get(4);
        long requestId = in.getLong(8);
        if (clientNode == null || op < DataProtocol.OP_GET || op > DataProtocol.OP_NOTIFY) {
            reply(DataProtocol.STATUS_MALFORMED, requestId, 0, 0);
            return false;
        }
        long segmentId = in.getLong(16);
        long offset = in.getLong(48);
        long a = in.getLong(56);
        long length = op == DataProtocol.OP_GET ? a : op == DataProtocol.OP_PUT ? payload : 8;
        if (op == DataProtocol.OP_GET && (a < 0 || a > DataProtocol.MAX_PAYLOAD) || op == DataProtocol.OP_PUT && a != payload
                || op != DataProtocol.OP_PUT && payload != 0) {
            reply(DataProtocol.STATUS_MALFORMED, requestId, 0, 0);
            return false;
        }
        RemoteTarget target = state.targets.get(segmentId);
        CmiAccessError denied = check(target, segmentId, OP_ACCESS[op], offset, length);
        if (denied != null) {
            for (int left = payload; left > 0; ) { // read and drop the refused store's data
                int chunk = Math.min(left, in.capacity() - DataProtocol.REQUEST_HEADER);
                in.clear().position(DataProtocol.REQUEST_HEADER).limit(DataProtocol.REQUEST_HEADER + chunk);
                fill(in, false);
                left -= chunk;
            }
            reply((byte) (1 + denied.ordinal()), requestId, 0, 0);
            return true;
        }
        try {
            switch (op) {
                case DataProtocol.OP_GET -> {
                    // The reply's payload is sent straight from the segment's mapping.
                    DataProtocol.writeReply(out, DataProtocol.STATUS_OK, requestId, length, (int) length);
                    out.flip();
                    send(target.data.asSlice(offset, length).asByteBuffer());
                }
                case DataProtocol.OP_PUT -> {
                    // The store's data is read straight into the segment's mapping.
                    fill(target.data.asSlice(offset, length).asByteBuffer(), false);
                    reply(DataProtocol.STATUS_OK, requestId, 0, 0);
                }
                case DataProtocol.OP_NOTIFY -> {
                    state.notifications.deliver(segmentId, offset, a, clientNode);
                    reply(DataProtocol.STATUS_OK, requestId, 0, 0);
                }
                default -> {
                    long before = (long) ATOMIC_LONG.compareAndExchange(target.data, offset, a, in.getLong(64));
                    reply(DataProtocol.STATUS_OK, requestId, before, 0);
                }
            }
        } catch (IllegalStateException closed) {
            // The segment was reclaimed and unmapped while we looked at it.
            reply((byte) (1 + CmiAccessError.SINVAL.ordinal()), requestId, 0, 0);
        }
        return true;
    }

    /** The home's access check (cmi(7) "CMI Access Control", "Segment Lifetime"). */
    private CmiAccessError check(RemoteTarget target, long segmentId, Access access, long offset, long length) {
        if (target == null) {
            return CmiAccessError.SINVAL;
        }
        if (target.marked) {
            return CmiAccessError.TOKEN;
        }
        HomeToken t = state.tokens.get(in.getLong(24));
        if (t == null || t.segmentId() != segmentId || !t.secretMatches(in.getLong(32), in.getLong(40))
                || t.node() != null && !Arrays.equals(t.node(), clientNode)) {
            return CmiAccessError.TOKEN;
        }
        if (offset < 0 || length < 0 || offset > target.size - length || !t.allows(access) || !t.covers(offset, length)) {
            return CmiAccessError.PERM;
        }
        if (access == Access.ATOMIC && (offset & 7) != 0) {
            return CmiAccessError.PERM;
        }
        if (offset > target.currentBreak() - length) {
            return CmiAccessError.SEG_BRK;
        }
        return null;
    }

    private void reply(byte status, long requestId, long value, int payload) throws IOException {
        DataProtocol.writeReply(out, status, requestId, value, payload);
        out.position(DataProtocol.REPLY_HEADER + payload).flip();
        send(null);
    }

    /** Writes {@code out} (flipped), then {@code payload} if any. */
    private void send(ByteBuffer payload) throws IOException {
        ByteBuffer[] parts = payload == null ? new ByteBuffer[] {out} : new ByteBuffer[] {out, payload};
        while (out.hasRemaining() || payload != null && payload.hasRemaining()) {
            if (channel.write(parts) == 0) {
                Thread.onSpinWait();
            }
        }
    }

    /** Reads until {@code in} is full to its limit, polling first and blocking when idle. */
    private boolean fill(ByteBuffer in, boolean eofAllowed) throws IOException {
        idle.reset();
        while (in.hasRemaining()) {
            int n = channel.read(in);
            if (n < 0) {
                if (eofAllowed && in.position() == 0) {
                    return false;
                }
                throw new EOFException("connection closed inside a request");
            }
            if (n > 0) {
                idle.reset();
            } else if (idle.idle()) {
                channel.configureBlocking(true);
                try {
                    n = channel.read(in);
                } finally {
                    channel.configureBlocking(false);
                }
                if (n < 0) {
                    if (eofAllowed && in.position() == 0) {
                        return false;
                    }
                    throw new EOFException("connection closed inside a request");
                }
                idle.reset();
            }
        }
        return true;
    }
}
