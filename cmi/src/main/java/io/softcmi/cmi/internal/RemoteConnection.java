package io.softcmi.cmi.internal;

import io.softcmi.wire.ClusterTls;
import io.softcmi.wire.DataProtocol;
import io.softcmi.wire.TlsChannel;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A process's data connection to one home node ({@link DataProtocol}): one hop, straight from
 * the process to the daemon that homes the segment, opened with a ticket from the process's own
 * daemon. Every call is synchronous for its caller (a store has been applied at the home when
 * it returns, which is what write-through imports and the barriers rely on), but the
 * connection is pipelined: threads of one context that use the same home at once each send
 * their request and wait for their own reply, matched by request id, instead of queueing
 * behind one round trip. A bulk transfer keeps several chunks in flight. A request may also be
 * queued without a write ({@link #queue}): the next request written carries it, in one write.
 *
 * <p>Reading is done by whichever waiting thread holds the reader role (leader/follower, no
 * extra thread): it reads replies for everyone, copies each payload to its caller's memory
 * (straight into it for bulk data) and unparks that caller; when its own reply has come it
 * hands the role to another waiter. The reader polls the socket for a {@link PollBudget}, then
 * blocks. A plain connection is in blocking mode once its HELLO is answered: the reader blocks
 * in {@code read} itself, so a request costs the client a {@code write} and a {@code read}, as
 * a blocking socket does (no selector, no {@code epoll_wait}); for its polls the socket is put
 * in non-blocking mode, where it stays until a wait blocks, so that each look is one
 * {@code read} ({@link ReplyReader}). A TLS connection stays
 * non-blocking and blocks in a selector. Nobody waits past the caller's deadline: a home that
 * stops answering fails the connection, and every call on it, with {@link #STATUS_TIMEOUT}
 * (for a blocked {@code read} or {@code write}, the {@link BlockingWatchdog} does it). An
 * interrupt that reaches a thread blocked in a plain connection's {@code read} or
 * {@code write} closes the socket (Java's interruptible channels): the calls in flight fail
 * with {@link #STATUS_IO} and the next call opens a new connection; an interrupt set before
 * the call is cleared for the call's duration and set again after.
 *
 * <p>This class is the connection's face: opening it (HELLO), the requests its callers make,
 * the {@link BlockingWatchdog}'s check, and failing it. Requests are put on the wire by its
 * {@link RequestWriter}; replies are awaited and read, in the reader role, by its
 * {@link ReplyReader}.
 */
final class RemoteConnection implements AutoCloseable {
    /** Status of a request that failed on the network: the caller maps it to TRANSIENT. */
    static final int STATUS_IO = -1;
    /** Status of a request whose reply did not come before the deadline: TRANSIENT. */
    static final int STATUS_TIMEOUT = -2;
    /** Status of a HELLO whose ticket the home refused. */
    static final int STATUS_REFUSED = DataProtocol.STATUS_REFUSED & 0xff;
    /** Longest the reader polls before it blocks, when replies come back fast. */
    static final long MAX_POLL_NANOS = 50_000;
    /** Chunks of a bulk transfer in flight at once. */
    static final int BULK_WINDOW = 4;

    private final SocketChannel socket;
    private final Selector selector;
    /**
     * Whether the socket is in blocking mode (plain TCP once the HELLO is answered): the reader
     * blocks in {@code read}, under the {@link BlockingWatchdog}'s deadline. Written before the
     * connection is published.
     */
    private boolean blocking;
    private final ConcurrentHashMap<Long, RemoteCall> calls = new ConcurrentHashMap<>();
    private final ReplyReader reader;
    private final RequestWriter writer;
    private volatile boolean broken;
    /** Its number within the context ({@link #open}); written before the connection is published. */
    private long number;
    /** Why the connection failed first ({@link #STATUS_IO} or {@link #STATUS_TIMEOUT}); 0 while it has not. */
    private final java.util.concurrent.atomic.AtomicInteger failedWith = new java.util.concurrent.atomic.AtomicInteger();

    private RemoteConnection(SocketChannel socket, TlsChannel tls, Selector selector) {
        this.socket = socket;
        this.selector = selector;
        ByteChannel channel = tls != null ? tls : socket;
        this.reader = new ReplyReader(this, channel, tls, selector, calls);
        this.writer = new RequestWriter(this, channel, tls != null ? tls : socket, tls, calls, reader);
    }

    /**
     * Connects to a home and says HELLO.
     *
     * @param home the home node
     * @param ticket this process's node ticket followed by its session key
     * @param clusterTls TLS to use (as the own daemon does), or null for plain TCP
     * @param timeoutNanos deadline for connecting, the TLS handshake and the HELLO's reply
     * @return the connection
     * @throws TicketRefusedException if the home refused the ticket
     * @throws IOException if the home cannot be reached, does not answer in time, or speaks another version
     */
    static RemoteConnection open(NodeAddressImpl home, byte[] ticket, ClusterTls clusterTls, long timeoutNanos)
            throws IOException {
        return open(home, ticket, clusterTls, timeoutNanos, 0, 0);
    }

    /**
     * Connects to a home and says HELLO, naming this connection and the one it replaces: the
     * home then serves nothing more of the old connection before it answers (docs/failures.md,
     * "Stale stores across a hang"), so a request the old one left unread at a hung home can
     * never land after a request sent on this one.
     *
     * @param home the home node
     * @param ticket this process's node ticket followed by its session key
     * @param clusterTls TLS to use (as the own daemon does), or null for plain TCP
     * @param timeoutNanos deadline for connecting, the TLS handshake and the HELLO's reply
     * @param number this connection's number, unique within the context (0: none)
     * @param supersedes the number of the context's connection to this home that this one
     *        replaces (0: none)
     * @return the connection
     * @throws TicketRefusedException if the home refused the ticket
     * @throws IOException if the home cannot be reached, does not answer in time, or speaks another version
     */
    static RemoteConnection open(NodeAddressImpl home, byte[] ticket, ClusterTls clusterTls, long timeoutNanos,
            long number, long supersedes) throws IOException {
        SocketChannel ch = SocketChannel.open();
        Selector sel = null;
        try {
            int connectMs = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeoutNanos / 1_000_000));
            ch.socket().connect(new InetSocketAddress(home.host(), home.port()), connectMs);
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ch.write(ByteBuffer.wrap(new byte[] {clusterTls != null ? (byte) 'd' : (byte) 'D'}));
            ch.configureBlocking(false);
            sel = Selector.open();
            ch.register(sel, SelectionKey.OP_READ);
            long deadline = System.nanoTime() + timeoutNanos;
            TlsChannel tls = null;
            if (clusterTls != null) {
                tls = new TlsChannel(ch, clusterTls.newEngine(true));
                tls.handshake(sel, deadline);
            }
            RemoteConnection c = new RemoteConnection(ch, tls, sel);
            RemoteCall hello = new RemoteCall();
            byte[] nonce = new byte[DataProtocol.NONCE_LENGTH];
            hello.dst = MemorySegment.ofArray(nonce);
            hello.width = nonce.length;
            c.writer.send(hello, DataProtocol.OP_HELLO, 0, null, number, DataProtocol.VERSION, supersedes,
                TicketProof.ticket(ticket), deadline);
            c.await(hello, deadline);
            if (hello.status == (DataProtocol.STATUS_CHALLENGE & 0xff)) {
                hello = new RemoteCall();
                c.writer.send(hello, DataProtocol.OP_PROOF, 0, null, 0, 0, 0,
                    TicketProof.proof(TicketProof.sessionKey(ticket), nonce), deadline);
                c.await(hello, deadline);
            }
            if (hello.status == STATUS_REFUSED) {
                throw new TicketRefusedException("home node " + home + " refused this node's ticket");
            }
            if (hello.status == (DataProtocol.STATUS_VERSION & 0xff)) {
                throw new IOException("home node " + home + " speaks data protocol version " + hello.value + ", this process "
                    + DataProtocol.VERSION);
            }
            if (hello.status != 0) {
                throw new IOException("home node " + home + " did not accept the data connection (status " + hello.status + ")");
            }
            if (tls == null) {
                c.goBlocking();
            }
            c.number = number;
            return c;
        } catch (IOException | RuntimeException e) {
            ch.close();
            if (sel != null) {
                sel.close();
            }
            throw e;
        }
    }

    /** A home refused the node ticket: the caller fetches a fresh one (tickets expire). */
    static final class TicketRefusedException extends IOException {
        private static final long serialVersionUID = 1L;

        TicketRefusedException(String message) {
            super(message);
        }
    }

    boolean broken() {
        return broken;
    }

    /** @return the number this connection was opened with (0: none), for the next one to supersede */
    long number() {
        return number;
    }

    /**
     * @return the status of the connection's first failure ({@link #STATUS_IO} or
     *     {@link #STATUS_TIMEOUT}), the status of every call failed with it; {@link #STATUS_IO}
     *     if it has not failed
     */
    int failure() {
        int first = failedWith.get();
        return first != 0 ? first : STATUS_IO;
    }

    /** @return whether the socket is in blocking mode (plain TCP) */
    boolean blocking() {
        return blocking;
    }

    /** @return whether the socket is in blocking mode now (polls put it in non-blocking mode; for tests) */
    boolean socketBlocking() {
        return socket.isBlocking();
    }

    /** @return polls that read a reply's bytes from the socket itself (for tests) */
    long polledReads() {
        return reader.polledReads();
    }

    /** Puts a plain connection's socket into blocking mode (before the connection is shared). */
    private void goBlocking() throws IOException {
        selector.close(); // deregisters the socket, so that it may block
        socket.configureBlocking(true);
        reader.goBlocking(socket, socket.socket().getInputStream(), writer.sendLock);
        blocking = true;
        BlockingWatchdog.watch(this);
    }

    /**
     * The {@link BlockingWatchdog}'s look at a blocking connection: fails it when a blocked
     * {@code read} or {@code write} is past its deadline; reads the replies waiting for a
     * writer that has been blocked for {@code stuckNanos} while nobody reads.
     *
     * @param now {@link System#nanoTime()}
     * @param stuckNanos how long a write may block before its replies are read for it
     */
    void checkBlocked(long now, long stuckNanos) {
        if (broken) {
            return;
        }
        if (reader.blockedPast(now) || writer.blockedPast(now)) {
            fail(STATUS_TIMEOUT);
            return;
        }
        if (writer.stuck(now, stuckNanos)) {
            reader.drainForBlockedWriter();
        }
    }

    /**
     * Reads {@code length} bytes at {@code offset} into {@code dst}, in chunks of at most
     * {@link DataProtocol#MAX_PAYLOAD}, {@link #BULK_WINDOW} of them in flight.
     *
     * @return 0, an access error's wire code, {@link #STATUS_IO} or {@link #STATUS_TIMEOUT}
     */
    int get(long segmentId, TokenImpl token, long offset, MemorySegment dst, long length, long deadline) {
        return bulk(DataProtocol.OP_GET, segmentId, token, offset, dst, length, deadline);
    }

    /** Writes {@code length} bytes of {@code src} at {@code offset}, sent straight from {@code src}. @return status as for get */
    int put(long segmentId, TokenImpl token, long offset, MemorySegment src, long length, long deadline) {
        return bulk(DataProtocol.OP_PUT, segmentId, token, offset, src, length, deadline);
    }

    private int bulk(byte op, long segmentId, TokenImpl token, long offset, MemorySegment data, long length, long deadline) {
        int chunks = (int) ((length + DataProtocol.MAX_PAYLOAD - 1) / DataProtocol.MAX_PAYLOAD);
        if (chunks == 0) {
            return 0;
        }
        RemoteCall[] window = new RemoteCall[Math.min(chunks, BULK_WINDOW)];
        int status = 0;
        for (int sent = 0, done = 0; done < chunks; ) {
            while (sent < chunks && sent - done < window.length && status == 0) {
                long at = (long) sent * DataProtocol.MAX_PAYLOAD;
                int n = (int) Math.min(length - at, DataProtocol.MAX_PAYLOAD);
                RemoteCall c = new RemoteCall();
                if (op == DataProtocol.OP_GET) {
                    c.dst = data;
                    c.dstOffset = at;
                    c.width = n;
                    writer.send(c, op, segmentId, token, offset + at, n, 0, null, deadline);
                } else {
                    // Every chunk of a larger store names the store's end: the home then knows the
                    // range is being written until that end arrives (in flux if the writer dies).
                    writer.sendPayload(c, DataProtocol.OP_PUT, segmentId, token, offset + at, n, chunks > 1 ? offset + length : 0,
                        data.asSlice(at, n), deadline);
                }
                window[sent % window.length] = c;
                sent++;
            }
            if (done == sent) {
                break;
            }
            RemoteCall c = window[done % window.length];
            await(c, deadline);
            if (status == 0 && c.status != 0) {
                status = c.status;
            }
            done++;
        }
        return status;
    }

    /** Compare-and-swap at the home. @return the call, with the value before in {@link RemoteCall#value} */
    RemoteCall cas(long segmentId, TokenImpl token, long offset, long cmpval, long swpval, long deadline) {
        RemoteCall c = startCas(segmentId, token, offset, cmpval, swpval, deadline);
        await(c, deadline);
        return c;
    }

    /** Sends a CAS without waiting; {@link #await} its call. */
    RemoteCall startCas(long segmentId, TokenImpl token, long offset, long cmpval, long swpval, long deadline) {
        RemoteCall c = new RemoteCall();
        writer.send(c, DataProtocol.OP_CAS, segmentId, token, offset, cmpval, swpval, null, deadline);
        return c;
    }

    /** Notification extension: asks the home to notify the segment's creator. @return status as for get */
    int notification(long segmentId, TokenImpl token, long offset, long value, long deadline) {
        RemoteCall c = new RemoteCall();
        writer.send(c, DataProtocol.OP_NOTIFY, segmentId, token, offset, value, 0, null, deadline);
        await(c, deadline);
        return c.status;
    }

    /**
     * Notification extension: a store and then a notification, in one round trip when the store
     * fits one request. The two requests go out back to back (under the send lock, so no other
     * thread's request comes between them) and the notification carries
     * {@link DataProtocol#FLAG_AFTER_OK}: the home, serving a connection's requests in order,
     * applies the store, then delivers the notification only if the store succeeded. A larger
     * store is sent as by {@link #put} and the notification after its replies. With
     * {@code waitersOffset >= 0} the notification also carries {@link DataProtocol#FLAG_IF_WAITING}:
     * the home delivers it only if the word at {@code waitersOffset} is not zero.
     *
     * @return the store's status if it failed, else the notification's (as for get)
     */
    int putThenNotify(long segmentId, TokenImpl token, long offset, MemorySegment src, long notifyOffset, long value,
            long waitersOffset, long deadline) {
        long length = src.byteSize();
        if (length == 0 || length > DataProtocol.MAX_PAYLOAD) {
            int status = put(segmentId, token, offset, src, length, deadline);
            if (status != 0) {
                return status;
            }
            RemoteCall notice = new RemoteCall();
            notice.flags = noticeFlags(waitersOffset);
            writer.send(notice, DataProtocol.OP_NOTIFY, segmentId, token, notifyOffset, value, Math.max(0, waitersOffset), null,
                deadline);
            await(notice, deadline);
            return notice.status;
        }
        return finishPutThenNotify(startPutThenNotify(segmentId, token, offset, src, notifyOffset, value, waitersOffset,
            deadline), deadline);
    }

    /**
     * The sending half of {@link #putThenNotify}, nobody waiting yet: the store, then the
     * notification, written under the send lock ({@code src} is in the socket when this returns).
     * A store of up to {@link DataProtocol#MAX_PAYLOAD} bytes is one request, written in one write
     * with the notification; a larger one is sent in chunks of that size as {@link #put} sends
     * them (each naming the store's end), but all at once, the notification in the write of the
     * last chunk, so that consecutive pipelined stores keep the connection busy instead of
     * waiting for each other's replies. The home serves a connection's requests in order and
     * drops the notification unless the request just before it, the last chunk, succeeded; the
     * chunks share their token and segment, so a refusal of one (a deleted token, a reclaimed
     * segment) is a refusal of the last. Their replies are read by whoever reads the connection
     * next (a waiter, or a writer whose socket is full), so they never pile up unread.
     *
     * @param waitersOffset the waiters word of {@link DataProtocol#FLAG_IF_WAITING}, or -1 for an unconditional notification
     * @return the chunks' calls and then the notification's, for {@link #finishPutThenNotify}
     */
    RemoteCall[] startPutThenNotify(long segmentId, TokenImpl token, long offset, MemorySegment src, long notifyOffset, long value,
            long waitersOffset, long deadline) {
        long length = src.byteSize();
        int chunks = chunks(length);
        RemoteCall[] calls = new RemoteCall[chunks + 1];
        sendLeadingChunks(calls, segmentId, token, offset, src, deadline);
        long at = (long) (chunks - 1) * DataProtocol.MAX_PAYLOAD;
        RemoteCall store = new RemoteCall();
        RemoteCall notice = new RemoteCall();
        notice.flags = noticeFlags(waitersOffset);
        writer.sendPayloadThenRequest(store, DataProtocol.OP_PUT, segmentId, token, offset + at, length - at,
            chunks > 1 ? offset + length : 0, src.asSlice(at), notice, DataProtocol.OP_NOTIFY, notifyOffset, value,
            Math.max(0, waitersOffset), deadline);
        calls[chunks - 1] = store;
        calls[chunks] = notice;
        return calls;
    }

    /**
     * {@link #startPutThenNotify} without the notification: the store alone, in chunks as there,
     * written before this returns and answered later (for {@link #finishPutThenNotify}, whose
     * last call is then the last chunk's).
     *
     * @return the chunks' calls
     */
    RemoteCall[] startPut(long segmentId, TokenImpl token, long offset, MemorySegment src, long deadline) {
        long length = src.byteSize();
        int chunks = chunks(length);
        RemoteCall[] calls = new RemoteCall[chunks];
        sendLeadingChunks(calls, segmentId, token, offset, src, deadline);
        long at = (long) (chunks - 1) * DataProtocol.MAX_PAYLOAD;
        calls[chunks - 1] = new RemoteCall();
        writer.sendPayload(calls[chunks - 1], DataProtocol.OP_PUT, segmentId, token, offset + at, length - at,
            chunks > 1 ? offset + length : 0, src.asSlice(at), deadline);
        return calls;
    }

    /** Requests of at most {@link DataProtocol#MAX_PAYLOAD} bytes a store of {@code length} bytes takes. */
    private static int chunks(long length) {
        return (int) Math.max(1, (length + DataProtocol.MAX_PAYLOAD - 1) / DataProtocol.MAX_PAYLOAD);
    }

    /** Sends every chunk of a store but the last, each naming the store's end, into {@code calls}. */
    private void sendLeadingChunks(RemoteCall[] calls, long segmentId, TokenImpl token, long offset, MemorySegment src,
            long deadline) {
        long length = src.byteSize();
        for (int k = 0; k < chunks(length) - 1; k++) {
            long at = (long) k * DataProtocol.MAX_PAYLOAD;
            calls[k] = new RemoteCall();
            writer.sendPayload(calls[k], DataProtocol.OP_PUT, segmentId, token, offset + at, DataProtocol.MAX_PAYLOAD,
                offset + length, src.asSlice(at, DataProtocol.MAX_PAYLOAD), deadline);
        }
    }

    /** The flags of a notification sent right after its store: only if it landed, and only if someone waits (offset >= 0). */
    private static byte noticeFlags(long waitersOffset) {
        return (byte) (DataProtocol.FLAG_AFTER_OK | (waitersOffset >= 0 ? DataProtocol.FLAG_IF_WAITING : 0));
    }

    /**
     * Waits for every call of {@link #startPutThenNotify} (or {@link #startPut}).
     *
     * @return the first failed store's status, else the last call's (the notification's, or the last chunk's)
     */
    int finishPutThenNotify(RemoteCall[] calls, long deadline) {
        int status = 0;
        for (RemoteCall c : calls) {
            await(c, deadline);
            if (status == 0 && c != calls[calls.length - 1]) {
                status = c.status;
            }
        }
        return status != 0 ? status : calls[calls.length - 1].status;
    }

    /**
     * Loads a 1, 2, 4 or 8-byte value (native byte order, as the memory holds it); the bits are
     * in {@link RemoteCall#value}, sign-extended from the value's width.
     */
    RemoteCall load(long segmentId, TokenImpl token, long offset, int width, long deadline) {
        RemoteCall c = new RemoteCall();
        c.width = width;
        writer.send(c, DataProtocol.OP_GET, segmentId, token, offset, width, 0, null, deadline);
        await(c, deadline);
        return c;
    }

    /** Stores the low {@code width} bytes of {@code bits} (native byte order). @return status as for get */
    int store(long segmentId, TokenImpl token, long offset, int width, long bits, long deadline) {
        RemoteCall c = new RemoteCall();
        c.width = width;
        c.value = bits;
        writer.send(c, DataProtocol.OP_PUT, segmentId, token, offset, width, 0, null, deadline);
        await(c, deadline);
        return c.status;
    }

    /**
     * Coherent cache (FILL, DIFF, ACQUIRE): sends one request and returns its call without
     * waiting, so a caller can keep several in flight and {@link #await} each.
     *
     * @param payload the request's payload (DIFF runs), or null
     * @param dst where the reply's payload goes (FILL data, ACQUIRE ranges), or null
     * @param dstLength bytes expected in {@code dst} (at most, when {@code upTo})
     */
    RemoteCall start(byte op, long segmentId, TokenImpl token, long offset, long a, long b, MemorySegment payload,
            MemorySegment dst, int dstLength, boolean upTo, long deadline) {
        RemoteCall c = new RemoteCall();
        c.dst = dst;
        c.width = dstLength;
        c.upTo = upTo;
        if (payload != null) {
            writer.sendPayload(c, op, segmentId, token, offset, a, b, payload, deadline);
        } else {
            writer.send(c, op, segmentId, token, offset, a, b, null, deadline);
        }
        return c;
    }

    /**
     * {@link #start} for a request without payload, queued instead of written
     * ({@link RequestWriter#queue}): it goes out in front of the next request written on this
     * connection, in the same write, or alone when it is first awaited. It still reaches the
     * home before every request started after it. Coherent cache: {@code rmb}'s {@code ACQUIRE}.
     */
    RemoteCall queue(byte op, long segmentId, TokenImpl token, long offset, long a, long b, MemorySegment dst, int dstLength,
            boolean upTo, long deadline) {
        RemoteCall c = new RemoteCall();
        c.dst = dst;
        c.width = dstLength;
        c.upTo = upTo;
        writer.queue(c, op, segmentId, token, offset, a, b, deadline);
        return c;
    }

    /**
     * Whether {@code s} can be viewed as a {@link ByteBuffer}: native memory, or a heap segment of
     * a {@code byte[]}. A segment of another primitive array ({@code MemorySegment.ofArray(long[])})
     * is copied through a {@code byte[]} instead.
     */
    static boolean hasByteBuffer(MemorySegment s) {
        return s.isNative() || s.heapBase().map(b -> b instanceof byte[]).orElse(false);
    }

    /** Waits until {@code c} is done: writes it first if it is still queued ({@link #queue}), then {@link ReplyReader#await}. */
    void await(RemoteCall c, long deadline) {
        writer.flush(c, deadline);
        reader.await(c, deadline);
    }

    /**
     * Fails the connection and every call on it. The first failure's status is every call's: a
     * deadline that closes the socket under a blocked writer makes that writer fail the
     * connection too, with an I/O error, and its call must still report the deadline.
     */
    void fail(int status) {
        failedWith.compareAndSet(0, status);
        int first = failedWith.get();
        broken = true;
        try {
            socket.close();
        } catch (IOException ignored) {
            // Nothing to tell a home that is gone.
        }
        if (blocking) {
            BlockingWatchdog.unwatch(this);
        } else {
            selector.wakeup();
        }
        // Each call is taken from the calls before it is completed: a reader that reads its reply
        // now no longer finds it, and a call a reader took (its reply being dispatched or read)
        // is the reader's to complete (ReplyReader.failBroken ends one it cannot).
        for (Long id : calls.keySet()) {
            RemoteCall c = calls.remove(id);
            if (c != null) {
                c.complete(first, 0);
            }
        }
    }

    @Override
    public void close() {
        fail(STATUS_IO);
        try {
            selector.close();
        } catch (IOException ignored) {
            // Closing anyway.
        }
    }
}
