package io.softcmi.node;

import io.softcmi.cmi.Access;
import io.softcmi.cmi.CmiAccessError;
import io.softcmi.cmi.internal.AccessStatus;
import io.softcmi.wire.DataProtocol;
import io.softcmi.wire.TlsChannel;
import io.softcmi.wire.WireFormatException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * The home side of one process's data connection ({@link DataProtocol}), after its HELLO: a
 * non-blocking state machine owned by one {@link DataIoLoop}. Each time the socket is ready it
 * serves every complete request in its input, in arrival order, batching the replies into one
 * write. Bulk data never passes through its buffers: a large store is read straight into the
 * segment's mapping, a large read is written straight from it. A store's last aligned word
 * (up to {@link #LAST_WORD} bytes) is written after the rest of it, so a reader polling the last
 * word of a message sees the whole message.
 *
 * <p>Back-pressure instead of spinning: while replies cannot be written (the client does not
 * read), the connection stops reading requests and waits for the socket to become writable, so
 * a client that asks for megabytes and never reads them costs memory for one reply and no CPU.
 * Likewise while a notification's creator is far behind reading its notices
 * ({@link NotificationService#mustWait}): the connection is <em>held</em>, the notification and
 * everything after it left unserved and the socket unread, until the creator's writer calls
 * the connection's resume task (the loop then serves it again); TCP holds the client back meanwhile.
 *
 * <p>With TLS the bytes pass through a {@link TlsChannel}: bulk data is then copied through its
 * buffers (no zero-copy), decrypted bytes it holds are served before the loop waits again
 * ({@link #hasBufferedInput()}), and encrypted bytes it could not send yet keep the connection
 * waiting for the socket to become writable.
 * <p>A request that passes its token check is admitted under its token until done ({@link Admission},
 * {@link AccessGate}); {@code tok_del} may cut the connection ({@link #cut()}).
 */
final class DataConnection implements RecentConnections.Member, AccessGate.Holder {
    /**
     * The most a store's last word can be: the aligned 8-byte word that holds the store's last
     * byte ({@link DataProtocol#bodyBeforeLastWord}) is written after the rest ({@link StoreInFlight}),
     * so a reader polling the last word of a message sees the whole message. (Its first version,
     * 5faaad7, split a {@code putLong} in two; {@code DataPathScaleTest} caught a half-read.)
     */
    static final int LAST_WORD = 8;

    private final SocketChannel channel;
    /** The TLS layer over {@link #channel}, or null. */
    private final TlsChannel tls;
    /** Where bytes are read from and written to: {@link #tls} or {@link #channel}. */
    private final ByteChannel io;
    private final byte[] clientNode;
    /** The context this connection writes for, for the writes-in-flight record. */
    private final WritesInFlight.Writer writer;
    private final HomeAccess access;
    private final DataPathStats stats;
    /** Its requests, read and served in place. */
    private final RequestInput input;
    /** Its replies, written together. */
    private final ReplyOutput out;
    private final CoherentAccess coherent;
    private SelectionKey key;
    /** Where its packets arrive, for loops that steer ({@link LoopCpus}); null otherwise. */
    final ArrivalCore arrival;
    /** Hands this connection back to its loop once a held notification's creator caught up. */
    private Runnable resumeTask;
    /** Held: a notification waits for its creator ({@link NotificationService#mustWait}); loop thread only. */
    private boolean held;
    /** Its NOTIFY requests, once admitted. */
    private final NotifyRequests notices;
    /** A store whose payload is still being read straight into the mapping. */
    private final StoreInFlight bulkIn = new StoreInFlight();
    /** Bytes of a refused store's payload still to be read and dropped. */
    private long discard;
    private boolean closeAfterFlush;
    /** The request being served, in the traffic tables. */
    private final RequestTraffic traffic;
    /** {@link EndedWriters#changes} when this connection last looked whether its context ended (-1: never). */
    private int endsSeen = -1;
    /** The {@link RecentConnections} window in which this connection was last counted. */
    private long trafficWindow = -1;
    /** The token admission of the request being served ({@link AccessGate}). */
    private final Admission admission = new Admission(this);
    /** A revocation gave up waiting for this connection's request ({@link #cut()}): close it. */
    private volatile boolean cut;
    /** Its place among its context's connections: a newer one may supersede it ({@link ConnectionLineage}). */
    private final ConnectionLineage.Member lineage;

    DataConnection(SocketChannel channel, TlsChannel tls, DataHandshake.DataClient client, HomeAccess access,
            DataPathStats stats, ArrivalCore arrival) {
        this.channel = channel;
        this.arrival = arrival;
        this.tls = tls;
        this.io = tls != null ? tls : channel;
        this.input = new RequestInput(io, tls == null);
        this.out = new ReplyOutput(io, tls != null ? tls : channel, tls);
        this.clientNode = client.node();
        this.writer = WritesInFlight.Writer.of(client.node(), client.session());
        this.access = access;
        this.stats = stats;
        this.coherent = new CoherentAccess(client, access, stats);
        this.traffic = new RequestTraffic(stats, client.node());
        this.notices = new NotifyRequests(access, clientNode, stats, out, traffic);
        this.lineage = client.member();
        lineage.attach(this);
    }

    SocketChannel channel() {
        return channel;
    }

    @Override
    public long trafficWindow() {
        return trafficWindow; // loop thread only
    }

    @Override
    public void trafficWindow(long w) {
        trafficWindow = w;
    }

    /**
     * @param k its key in the loop's selector
     * @param resume hands it back to the loop (any thread) to be served again after a hold
     */
    void registered(SelectionKey k, Runnable resume) {
        this.key = k;
        this.resumeTask = resume;
        if (lineage.superseded()) {
            cut(); // superseded before its loop took it
        }
    }

    /** @return whether another loop may take it over now: not held nor streaming an admitted store (the resume task,
     *  which {@link #cut()} uses too, names this loop), no reply waiting, no TLS input */
    boolean movable() {
        return !held && !admission.admitted() && !closeAfterFlush && key != null && key.isValid()
            && key.interestOps() == SelectionKey.OP_READ && (tls == null || !tls.hasBufferedInput());
    }

    /**
     * Reads what the socket holds, for a loop that polls this connection's socket directly
     * instead of its selector ({@link DataIoLoop}, "the hot connection"): only when nothing else
     * is under way (not held, no bulk transfer or discard, nothing left to send, no TLS), as the
     * next {@link #service} would read first. Bytes read count as that pass's read, so the pass
     * does not read again before it serves them.
     *
     * @return bytes read (0 if none, or if the connection is not in that state), -1 at EOF
     * @throws IOException if the read fails
     */
    int readAhead() throws IOException {
        if (!readsAhead() || held || closeAfterFlush || bulkIn.active() || discard > 0 || out.pending()
                || key == null || !key.isValid() || key.interestOps() != SelectionKey.OP_READ) {
            return 0;
        }
        int n = input.read();
        readAhead = n > 0;
        return n;
    }

    /** @return whether {@link #readAhead} can read this connection at all (not over TLS, whose records the TLS layer reads) */
    boolean readsAhead() {
        return tls == null;
    }

    /** Whether {@link #readAhead} read this pass's input already. */
    private boolean readAhead;

    /** @return its key, or null before it is registered */
    SelectionKey key() {
        return key;
    }

    /** The held notification's creator caught up: serve again (loop thread, then {@link #service}). */
    void resume() {
        held = false;
    }

    /** @return true when TLS holds input the selector cannot see: serve again without waiting */
    boolean hasBufferedInput() {
        return tls != null && tls.hasBufferedInput() && key != null && key.interestOps() == SelectionKey.OP_READ;
    }

    /**
     * Does all the work the socket allows now. First, if an end was recorded since it last
     * looked ({@link EndedWriters}), whether its own context ended: then it serves nothing more.
     *
     * @return false when the connection is to be closed
     */
    boolean service() throws IOException {
        try {
            return lineage.passBegin() && serve(); // false: a newer connection of its context superseded it
        } finally {
            lineage.passEnd();
        }
    }

    private boolean serve() throws IOException {
        if (cut) {
            return false; // a revocation waited its bound for this connection's request
        }
        EndedWriters ended = access.endedWriters();
        int ends = ended.changes();
        if (ends != endsSeen) {
            endsSeen = ends;
            if (ended.ended(writer)) {
                return false; // its context ended, or its node was declared dead: nothing more of it is served
            }
        }
        try {
            boolean readThisPass = readAhead;
            readAhead = false;
            for (int round = 0; round < 64; round++) {
                if (!out.flush()) {
                    key.interestOps(SelectionKey.OP_WRITE);
                    return true;
                }
                admission.leaveUnless(bulkIn.active()); // a large read's payload is out (or nothing was admitted)
                if (closeAfterFlush) {
                    return false;
                }
                if (held) {
                    break;
                }
                if (bulkIn.active() || discard > 0) {
                    if (!readPayload()) {
                        return false;
                    }
                    if (bulkIn.active() || discard > 0) {
                        break;
                    }
                    continue;
                }
                int served = serveBuffered();
                if (served > 0) {
                    stats.batch(served);
                }
                if (held) {
                    break; // read nothing more until the creator caught up
                }
                if (bulkIn.active() || out.bulkPending() || closeAfterFlush || out.halfFull()) {
                    continue;
                }
                if (readThisPass && (tls == null || !tls.hasBufferedInput())) {
                    break; // level-triggered: the selector reports the socket again if more came
                }
                int n = input.read();
                readThisPass = true;
                if (n < 0) {
                    return false;
                }
                if (n == 0) {
                    break;
                }
            }
            if (!out.flush()) {
                key.interestOps(SelectionKey.OP_WRITE);
                return true;
            }
            admission.leaveUnless(bulkIn.active());
            if (closeAfterFlush) {
                return false;
            }
            key.interestOps(held ? 0 : SelectionKey.OP_READ);
            return true;
        } catch (IllegalStateException unmapped) {
            // A bulk transfer's segment was reclaimed mid-way: the stream cannot be resumed.
            return false;
        }
    }

    /** Reads the rest of a store's payload into the mapping, or drops a refused one. @return false on EOF */
    private boolean readPayload() throws IOException {
        if (bulkIn.active()) {
            int done = bulkIn.read(io);
            if (done > 0) {
                coherent.bulkPutEnded(bulkIn.segment(), bulkIn.offset(), bulkIn.length());
                access.writes().finished(this, bulkIn.segment(), bulkIn.offset() + bulkIn.length());
                admission.leave(); // its last byte landed and is logged
                reply(DataProtocol.STATUS_OK, bulkIn.request(), 0);
            }
            return done >= 0;
        }
        int n = input.drop(discard);
        if (n < 0) {
            return false;
        }
        discard -= n;
        return true;
    }

    /** Serves every complete request in its {@link #input}; stops early for bulk transfers or a full output. @return requests served */
    private int serveBuffered() {
        ByteBuffer in = input.beginServing();
        boolean keep = false;
        int served = 0;
        org.HdrHistogram.SingleWriterRecorder serviceTimes = null; // the serving thread's, fetched at the first request
        try {
            while (in.remaining() >= DataProtocol.REQUEST_HEADER && !closeAfterFlush && !bulkIn.active() && !held
                    && out.hasRoom()) {
                int p = in.position();
                long started = System.nanoTime();
                int replyAt = out.position();
                traffic.start();
                int payload = DataProtocol.requestPayload(in.getInt(p));
                byte op = in.get(p + 4);
                long requestId = in.getLong(p + 8);
                input.serving(op, payload);
                if (op == DataProtocol.OP_DIFF && in.remaining() < DataProtocol.REQUEST_HEADER + payload
                        && payload <= DataProtocol.MAX_DIFF_PAYLOAD) {
                    keep = input.awaitRest(p, payload); // its rest fits behind it: read on without moving what came
                    break; // a diff is served from the input buffer whole: wait for the rest
                }
                if (op == DataProtocol.OP_PUT) {
                    servePut(in, p, payload, requestId);
                } else if (op == DataProtocol.OP_DIFF && payload <= DataProtocol.MAX_DIFF_PAYLOAD) {
                    in.position(p + DataProtocol.REQUEST_HEADER + payload);
                    byte status = coherent.diff(in, p, payload);
                    if (status == DataProtocol.STATUS_MALFORMED) {
                        malformed(requestId);
                    } else {
                        traffic.wrote(status == DataProtocol.STATUS_OK ? coherent.lastDiffBytes() : 0);
                        reply(status, requestId, 0);
                    }
                } else if (op == DataProtocol.OP_FORGET && payload == 0) {
                    in.position(p + DataProtocol.REQUEST_HEADER);
                    reply(coherent.forget(in, p), requestId, 0);
                } else if (op == DataProtocol.OP_ACQUIRE && payload == 0) {
                    in.position(p + DataProtocol.REQUEST_HEADER);
                    coherent.acquire(in, p, requestId, out.buffer());
                } else if ((op == DataProtocol.OP_GET || op == DataProtocol.OP_CAS || op == DataProtocol.OP_NOTIFY
                        || op == DataProtocol.OP_FILL) && payload == 0) {
                    in.position(p + DataProtocol.REQUEST_HEADER);
                    serveSmall(in, p, op, requestId);
                } else {
                    malformed(requestId);
                }
                if (bulkIn.active() || out.bulkPending()) {
                    admission.holdOnClient(); // admitted until its last byte is in or out
                } else {
                    admission.leave(); // done: applied, copied out or refused, its notice queued
                }
                if (held) {
                    in.position(p); // served again, from its header, when the creator caught up
                    break;
                }
                long took = System.nanoTime() - started;
                if (serviceTimes == null) {
                    serviceTimes = stats.serviceRecorder();
                }
                serviceTimes.recordValue(took);
                // A request that replied did so at replyAt; a store still being read has not (yet) failed.
                byte replyStatus = out.statusSince(replyAt);
                traffic.record(in.getLong(p + 16), replyStatus, took);
                served++;
            }
        } catch (WireFormatException e) {
            admission.leave();
            malformed(0);
            keep = false;
        }
        input.endServing(keep);
        return served;
    }

    private void servePut(ByteBuffer in, int p, int payload, long requestId) {
        long segmentId = in.getLong(p + 16);
        long offset = in.getLong(p + 48);
        if (in.getLong(p + 56) != payload) {
            malformed(requestId);
            return;
        }
        byte status = access.admit(admission, clientNode, segmentId, in.getLong(p + 24), in.getLong(p + 32),
            in.getLong(p + 40), Access.WRITE, offset, payload);
        int start = p + DataProtocol.REQUEST_HEADER;
        int here = Math.min(payload, in.limit() - start);
        in.position(start + here);
        if (status != DataProtocol.STATUS_OK) {
            stats.errors.increment();
            discard = payload - here;
            reply(status, requestId, 0);
            return;
        }
        MemorySegment target = access.slice(segmentId, offset, payload);
        if (target == null) {
            discard = payload - here;
            reply(AccessStatus.toWire(CmiAccessError.SINVAL), requestId, 0);
            return;
        }
        // A chunk of a larger store names the store's end: until that end arrives the range is
        // a write in flight (torn if the writer dies first); so is a chunk read straight into the
        // mapping until its last byte. Recorded before the first byte lands, and refused once the
        // writer's context is known to have ended (its stores in flight were taken already:
        // WritesInFlight.started); the connection is then closed.
        long bulkEnd = in.getLong(p + 64);
        if (bulkEnd > offset + payload && !access.writes().started(this, writer, segmentId, offset, bulkEnd)
                || here < payload && !access.writes().started(this, writer, segmentId, offset, offset + payload)) {
            stats.errors.increment();
            reply(AccessStatus.toWire(CmiAccessError.TOKEN), requestId, 0);
            closeAfterFlush = true;
            return;
        }
        // All but the last aligned word first; that word after them (LAST_WORD; a store within one
        // aligned word, a putLong, is one copy: never split).
        int body = DataProtocol.bodyBeforeLastWord(offset, payload);
        try {
            if (here == payload) {
                coherent.put(segmentId, offset, input.segment(), start, target, payload, body); // copied and logged
            } else {
                coherent.bulkPutStarting(segmentId, offset, payload);
                WordCopy.toMapping(input.segment(), start, target, 0, Math.min(here, body));
            }
        } catch (IllegalStateException unmapped) {
            if (here < payload) {
                access.writes().finished(this, segmentId, offset + payload); // the chunk is not read in
            }
            discard = payload - here;
            reply(AccessStatus.toWire(CmiAccessError.SINVAL), requestId, 0);
            return;
        }
        traffic.count(DataProtocol.OP_PUT, payload);
        if (here == payload) {
            if (bulkEnd != 0) {
                access.writes().finished(this, segmentId, offset + payload);
            }
            reply(DataProtocol.STATUS_OK, requestId, 0);
        } else {
            bulkIn.start(target, in, start, here, body, requestId, segmentId, offset);
        }
    }

    private void serveSmall(ByteBuffer in, int p, byte op, long requestId) {
        long segmentId = in.getLong(p + 16);
        long offset = in.getLong(p + 48);
        long a = in.getLong(p + 56);
        boolean read = op == DataProtocol.OP_GET || op == DataProtocol.OP_FILL;
        if (read && (a < 0 || a > DataProtocol.MAX_PAYLOAD)) {
            malformed(requestId);
            return;
        }
        long length = read ? a : 8; // CAS and NOTIFY: checked as one 8-byte word
        byte status = access.admit(admission, clientNode, segmentId, in.getLong(p + 24), in.getLong(p + 32),
            in.getLong(p + 40), HomeAccess.accessOf(op), offset, length);
        if (status != DataProtocol.STATUS_OK) {
            stats.errors.increment();
            reply(status, requestId, 0);
            return;
        }
        if (op == DataProtocol.OP_NOTIFY) {
            if (notices.serve(in, p, requestId, segmentId, offset, a, resumeTask)) {
                held = true; // nothing answered or counted: the whole request is served again
            }
            return;
        }
        long value = length;
        if (op == DataProtocol.OP_FILL) {
            value = coherent.filled(in, p, segmentId, offset, length);
        }
        MemorySegment slice = access.slice(segmentId, offset, length);
        try {
            if (slice == null) {
                throw new IllegalStateException("reclaimed");
            }
            if (op == DataProtocol.OP_CAS) {
                long before = coherent.cas(segmentId, offset, slice, a, in.getLong(p + 64));
                traffic.count(op, 8);
                reply(DataProtocol.STATUS_OK, requestId, before);
            } else if (length <= ReplyOutput.INLINE_READ) {
                out.replyInline(requestId, value, slice, length);
                traffic.count(op, length);
            } else {
                out.replyBulk(requestId, value, slice);
                traffic.count(op, length);
            }
        } catch (IllegalStateException unmapped) {
            reply(AccessStatus.toWire(CmiAccessError.SINVAL), requestId, 0);
        }
    }

    private void malformed(long requestId) {
        reply(DataProtocol.STATUS_MALFORMED, requestId, 0);
        closeAfterFlush = true;
    }

    private void reply(byte status, long requestId, long value) {
        out.reply(status, requestId, value);
    }

    /**
     * Its loop closes it (any thread; nothing before it is registered, whose first pass then
     * closes it): a revocation waited its bound for its streamed store or large read, or a newer
     * connection of its context superseded it ({@link ConnectionLineage}).
     */
    @Override
    public void cut() {
        if (!cut && resumeTask != null) {
            cut = true;
            resumeTask.run(); // hands it to its loop, whose service() then closes it
        }
    }

    /** Closes the socket. */
    void close() {
        admission.leave(); // a store or read cut short ends here: nothing more of it lands or leaves
        access.writes().connectionClosed(this);
        lineage.leave();
        try {
            io.close();
        } catch (IOException ignored) {
            // Gone already.
        }
    }
}
