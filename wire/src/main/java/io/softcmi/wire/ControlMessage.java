package io.softcmi.wire;

import static io.softcmi.wire.WireLists.putStrings;
import static io.softcmi.wire.WireLists.getStrings;
import static io.softcmi.wire.WireLists.putLongs;
import static io.softcmi.wire.WireLists.getLongs;

import java.util.ArrayList;
import java.util.List;

/**
 * Messages of the control protocol between a process (client library) and its node daemon, over
 * the node's Unix-domain socket. Requests go from client to node and get exactly one reply with
 * the same correlation id; notices go from node to client with correlation id 0.
 *
 * <p>Payload layouts are the field order of each record, encoded with {@link WireWriter}.
 * Error codes in {@link ErrorReply} are ordinals of {@code io.softcmi.cmi.CmiError}.
 */
public sealed interface ControlMessage
        permits ControlMessage.Hello, ControlMessage.SegGet, ControlMessage.SegLookup,
        ControlMessage.SegAttach, ControlMessage.SegDetach, ControlMessage.SegRemove,
        ControlMessage.SegBreak, ControlMessage.SegExport, ControlMessage.RsegDelete,
        ControlMessage.CtlInfo, ControlMessage.CacheRsegSet, ControlMessage.CacheRsegGet,
        ControlMessage.MemReserve, ControlMessage.MemReserveDelete, ControlMessage.MemReserveSet,
        ControlMessage.CmapGet, ControlMessage.SegRecovery, ControlMessage.AdminList,
        ControlMessage.AdminDeleteReservation, ControlMessage.SegImport, ControlMessage.TokNew,
        ControlMessage.TokDel, ControlMessage.SegSetToken, ControlMessage.TicketRequest,
        ControlMessage.TlsTrustRequest, ControlMessage.Notify, ControlMessage.CacheReport,
        ControlMessage.ImportStatus, ControlMessage.Goodbye, ControlMessage.HelloReply,
        ControlMessage.Ok, ControlMessage.ErrorReply, ControlMessage.SegmentReply,
        ControlMessage.Attached, ControlMessage.LongValue, ControlMessage.BytesValue,
        ControlMessage.LongsValue, ControlMessage.ReservationReply, ControlMessage.RangeReply,
        ControlMessage.Table, ControlMessage.ProxyReply, ControlMessage.ProxyAttached,
        ControlMessage.EventNotice, ControlMessage.NodeShutdown, ControlMessage.HomeDownNotice,
        ControlMessage.FluxNotice, ControlMessage.TokenNotice, ControlMessage.NotificationNotice,
        PeerMessage, ProcessMessage {
    /** Longest string field accepted from the wire. */
    int MAX_STRING = 4096;
    /** Longest argument or environment entry of a {@link ProcessMessage.ProcSpawn} (class paths are long). */
    int MAX_ARGUMENT = 1 << 17;
    /** Most list entries accepted from the wire. */
    int MAX_LIST = 1 << 16;

    /** @return the message's type */
    MessageType type();

    /** @param w where to encode the payload */
    void encode(WireWriter w);

    /**
     * First request on a connection.
     *
     * @param protocolVersion {@link Frame#VERSION}
     * @param pid the client's process id
     * @param processName a name for listings (the main class or command)
     * @param apiVersion negotiated CMI API version (verno)
     */
    record Hello(int protocolVersion, long pid, String processName, int apiVersion) implements ControlMessage {
        public MessageType type() { return MessageType.HELLO; }
        public void encode(WireWriter w) { w.putInt(protocolVersion).putLong(pid).putString(processName).putInt(apiVersion); }
        static Hello decode(WireReader r) { return new Hello(r.getInt(), r.getLong(), r.getString(MAX_STRING), r.getInt()); }
    }

    /** {@code seg_get}. @param size bytes @param flags SegFlag bits */
    record SegGet(long size, int flags) implements ControlMessage {
        public MessageType type() { return MessageType.SEG_GET; }
        public void encode(WireWriter w) { w.putLong(size).putInt(flags); }
        static SegGet decode(WireReader r) { return new SegGet(r.getLong(), r.getInt()); }
    }

    /** Look a segment up by id (node scope), also {@code seg_ctl(CMI_SEG_STATUS)}. @param segId id */
    record SegLookup(long segId) implements ControlMessage {
        public MessageType type() { return MessageType.SEG_LOOKUP; }
        public void encode(WireWriter w) { w.putLong(segId); }
        static SegLookup decode(WireReader r) { return new SegLookup(r.getLong()); }
    }

    /** {@code seg_at}. @param segId id @param readOnly {@code CMI_SEG_READ} */
    record SegAttach(long segId, boolean readOnly) implements ControlMessage {
        public MessageType type() { return MessageType.SEG_ATTACH; }
        public void encode(WireWriter w) { w.putLong(segId).putBoolean(readOnly); }
        static SegAttach decode(WireReader r) { return new SegAttach(r.getLong(), r.getBoolean()); }
    }

    /** {@code seg_dt}. @param attachId what {@link Attached} returned */
    record SegDetach(long attachId) implements ControlMessage {
        public MessageType type() { return MessageType.SEG_DETACH; }
        public void encode(WireWriter w) { w.putLong(attachId); }
        static SegDetach decode(WireReader r) { return new SegDetach(r.getLong()); }
    }

    /** {@code seg_ctl(CMI_SEG_RM)}. @param segId id */
    record SegRemove(long segId) implements ControlMessage {
        public MessageType type() { return MessageType.SEG_REMOVE; }
        public void encode(WireWriter w) { w.putLong(segId); }
        static SegRemove decode(WireReader r) { return new SegRemove(r.getLong()); }
    }

    /** {@code seg_ctl(CMI_SEG_BRK)}. @param segId id @param brk new break */
    record SegBreak(long segId, long brk) implements ControlMessage {
        public MessageType type() { return MessageType.SEG_BREAK; }
        public void encode(WireWriter w) { w.putLong(segId).putLong(brk); }
        static SegBreak decode(WireReader r) { return new SegBreak(r.getLong(), r.getLong()); }
    }

    /** {@code seg_exp}. @param segId id @param attrs ExportAttr bits */
    record SegExport(long segId, int attrs) implements ControlMessage {
        public MessageType type() { return MessageType.SEG_EXPORT; }
        public void encode(WireWriter w) { w.putLong(segId).putInt(attrs); }
        static SegExport decode(WireReader r) { return new SegExport(r.getLong(), r.getInt()); }
    }

    /** {@code rseg_del}. @param handle the remote segment handle's bytes */
    record RsegDelete(byte[] handle) implements ControlMessage {
        public MessageType type() { return MessageType.RSEG_DELETE; }
        public void encode(WireWriter w) { w.putBytes(handle); }
        static RsegDelete decode(WireReader r) { return new RsegDelete(r.getBytes(MAX_STRING)); }
    }

    /** {@code cmi_ctl(CMI_CTL_INFO)}. */
    record CtlInfo() implements ControlMessage {
        public MessageType type() { return MessageType.CTL_INFO; }
        public void encode(WireWriter w) { }
        static CtlInfo decode(WireReader r) { return new CtlInfo(); }
    }

    /** {@code CMI_CTL_CACHE_RSEG_SET}. @param segId id or -1 for all @param bytes cache size */
    record CacheRsegSet(long segId, long bytes) implements ControlMessage {
        public MessageType type() { return MessageType.CACHE_RSEG_SET; }
        public void encode(WireWriter w) { w.putLong(segId).putLong(bytes); }
        static CacheRsegSet decode(WireReader r) { return new CacheRsegSet(r.getLong(), r.getLong()); }
    }

    /** {@code CMI_CTL_CACHE_RSEG_GET}. @param segId id */
    record CacheRsegGet(long segId) implements ControlMessage {
        public MessageType type() { return MessageType.CACHE_RSEG_GET; }
        public void encode(WireWriter w) { w.putLong(segId); }
        static CacheRsegGet decode(WireReader r) { return new CacheRsegGet(r.getLong()); }
    }

    /** {@code CMI_CTL_MEM_RESERVE}. @param bytes amount to reserve */
    record MemReserve(long bytes) implements ControlMessage {
        public MessageType type() { return MessageType.MEM_RESERVE; }
        public void encode(WireWriter w) { w.putLong(bytes); }
        static MemReserve decode(WireReader r) { return new MemReserve(r.getLong()); }
    }

    /** {@code CMI_CTL_MEM_RESERVE_DEL}. */
    record MemReserveDelete() implements ControlMessage {
        public MessageType type() { return MessageType.MEM_RESERVE_DELETE; }
        public void encode(WireWriter w) { }
        static MemReserveDelete decode(WireReader r) { return new MemReserveDelete(); }
    }

    /** {@code CMI_CTL_MEM_RESERVE_SET}. @param key reservation key, 0 for none */
    record MemReserveSet(long key) implements ControlMessage {
        public MessageType type() { return MessageType.MEM_RESERVE_SET; }
        public void encode(WireWriter w) { w.putLong(key); }
        static MemReserveSet decode(WireReader r) { return new MemReserveSet(r.getLong()); }
    }

    /** {@code CMI_CTL_NODE_CMAP_GET}. @param requestId non-zero request id */
    record CmapGet(long requestId) implements ControlMessage {
        public MessageType type() { return MessageType.CMAP_GET; }
        public void encode(WireWriter w) { w.putLong(requestId); }
        static CmapGet decode(WireReader r) { return new CmapGet(r.getLong()); }
    }

    /**
     * {@code seg_ctl(CMI_SEG_CHECK)} or {@code seg_ctl(CMI_SEG_RECO)}.
     *
     * @param segId id
     * @param offset start of range
     * @param length bytes
     * @param recover true for RECO, false for CHECK
     */
    record SegRecovery(long segId, long offset, long length, boolean recover) implements ControlMessage {
        public MessageType type() { return MessageType.SEG_RECOVERY; }
        public void encode(WireWriter w) { w.putLong(segId).putLong(offset).putLong(length).putBoolean(recover); }
        static SegRecovery decode(WireReader r) { return new SegRecovery(r.getLong(), r.getLong(), r.getLong(), r.getBoolean()); }
    }

    /** {@code cmiadm} listing. @param table "contexts", "segments", "reservations", ... */
    record AdminList(String table) implements ControlMessage {
        public MessageType type() { return MessageType.ADMIN_LIST; }
        public void encode(WireWriter w) { w.putString(table); }
        static AdminList decode(WireReader r) { return new AdminList(r.getString(MAX_STRING)); }
    }

    /** {@code cmiadm reservation-delete}. @param key reservation key */
    record AdminDeleteReservation(long key) implements ControlMessage {
        public MessageType type() { return MessageType.ADMIN_DELETE_RESERVATION; }
        public void encode(WireWriter w) { w.putLong(key); }
        static AdminDeleteReservation decode(WireReader r) { return new AdminDeleteReservation(r.getLong()); }
    }

    /** {@code seg_imp}. @param handle the remote segment handle's bytes */
    record SegImport(byte[] handle) implements ControlMessage {
        public MessageType type() { return MessageType.SEG_IMPORT; }
        public void encode(WireWriter w) { w.putBytes(handle); }
        static SegImport decode(WireReader r) { return new SegImport(r.getBytes(MAX_STRING)); }
    }

    /**
     * {@code tok_new} / {@code tok_newva}.
     *
     * @param segId segment
     * @param node node address bytes (ANY for any node)
     * @param access Access bits
     * @param offset start of the range ({@code tok_newva}) or 0
     * @param size length of the range, or 0 for the whole segment
     */
    record TokNew(long segId, byte[] node, int access, long offset, long size) implements ControlMessage {
        public MessageType type() { return MessageType.TOK_NEW; }
        public void encode(WireWriter w) { w.putLong(segId).putBytes(node).putInt(access).putLong(offset).putLong(size); }
        static TokNew decode(WireReader r) { return new TokNew(r.getLong(), r.getBytes(MAX_STRING), r.getInt(), r.getLong(), r.getLong()); }
    }

    /** {@code tok_del}. @param token the token's bytes */
    record TokDel(byte[] token) implements ControlMessage {
        public MessageType type() { return MessageType.TOK_DEL; }
        public void encode(WireWriter w) { w.putBytes(token); }
        static TokDel decode(WireReader r) { return new TokDel(r.getBytes(MAX_STRING)); }
    }

    /** {@code seg_ctl(CMI_SEG_TOKEN)}. @param segId proxy segment @param token the token's bytes */
    record SegSetToken(long segId, byte[] token) implements ControlMessage {
        public MessageType type() { return MessageType.SEG_SET_TOKEN; }
        public void encode(WireWriter w) { w.putLong(segId).putBytes(token); }
        static SegSetToken decode(WireReader r) { return new SegSetToken(r.getLong(), r.getBytes(MAX_STRING)); }
    }

    /** Asks the node for a ticket proving the process belongs to it (for remote data sessions). */
    record TicketRequest() implements ControlMessage {
        public MessageType type() { return MessageType.TICKET; }
        public void encode(WireWriter w) { }
        static TicketRequest decode(WireReader r) { return new TicketRequest(); }
    }

    /**
     * Asks the node for the certificates it trusts for TLS connections to homes
     * ({@link ClusterTls#trust()}); an empty reply means the node does not use TLS.
     */
    record TlsTrustRequest() implements ControlMessage {
        public MessageType type() { return MessageType.TLS_TRUST; }
        public void encode(WireWriter w) { }
        static TlsTrustRequest decode(WireReader r) { return new TlsTrustRequest(); }
    }

    /**
     * Notification extension (not a libcmi call): a one-way message (correlation id 0, no reply)
     * asking the node to deliver {@code (offset, value)} to the creator of a segment of this
     * node that the sender has attached ({@code io.softcmi.cmi.notify.Notifications#notify}).
     *
     * @param segId segment id at this node
     * @param offset offset in the segment the notification names
     * @param value the notification's value
     */
    record Notify(long segId, long offset, long value) implements ControlMessage {
        public MessageType type() { return MessageType.NOTIFY; }
        public void encode(WireWriter w) { w.putLong(segId).putLong(offset).putLong(value); }
        static Notify decode(WireReader r) { return new Notify(r.getLong(), r.getLong(), r.getLong()); }
    }

    /**
     * A context's cache figures ({@code docs/cache.md} "Counters"): a one-way message
     * (correlation id 0, no reply) the client library sends its node about once a second while
     * the figures change, so {@code cmiadm caches} and the metrics can show them. The node keeps
     * the latest per context and forgets it when the context ends. A node that does not know the
     * type answers an {@link ErrorReply} with correlation id 0, which the client takes as "stop
     * reporting". The first five fields are the state now, the other ten are counters since the
     * context began. Payload, 120 bytes, every field a big-endian 64-bit integer:
     *
     * <pre>
     *   0                   1                   2                   3
     *  +-------------------------------+-------------------------------+
     *  |  0 cachedImports              |  8 residentLines              |
     *  +-------------------------------+-------------------------------+
     *  | 16 dirtyLines                 | 24 memoryBytes                |
     *  +-------------------------------+-------------------------------+
     *  | 32 capacityBytes              | 40 misses                     |
     *  +-------------------------------+-------------------------------+
     *  | 48 fills                      | 56 fillBytes                  |
     *  +-------------------------------+-------------------------------+
     *  | 64 writeBackLines             | 72 diffs                      |
     *  +-------------------------------+-------------------------------+
     *  | 80 diffBytes                  | 88 acquires                   |
     *  +-------------------------------+-------------------------------+
     *  | 96 invalidations              |104 evictions                  |
     *  +-------------------------------+-------------------------------+
     *  |112 backgroundWriteBacks       |
     *  +-------------------------------+
     * </pre>
     * (each box is one 8-byte field; the number is its offset in the payload)
     *
     * @param cachedImports attached imports of the context that are cached
     * @param residentLines lines the caches hold
     * @param dirtyLines lines stored to and not yet written back
     * @param memoryBytes bytes the caches hold (lines and twins)
     * @param capacityBytes the caches' bounds ({@code CMI_CTL_CACHE_RSEG_SET}), summed
     * @param misses loads or stores that found their line absent
     * @param fills fill requests sent to homes
     * @param fillBytes bytes the fills brought
     * @param writeBackLines dirty lines written back
     * @param diffs diff runs sent
     * @param diffBytes bytes of diffs sent (run headers included)
     * @param acquires acquires run (barriers and the background refresh)
     * @param invalidations lines dropped by acquires
     * @param evictions lines dropped to stay within the capacity
     * @param backgroundWriteBacks write-backs the background thread started
     */
    record CacheReport(long cachedImports, long residentLines, long dirtyLines, long memoryBytes, long capacityBytes,
            long misses, long fills, long fillBytes, long writeBackLines, long diffs, long diffBytes, long acquires,
            long invalidations, long evictions, long backgroundWriteBacks) implements ControlMessage {
        public MessageType type() { return MessageType.CACHE_REPORT; }
        public void encode(WireWriter w) {
            w.putLong(cachedImports).putLong(residentLines).putLong(dirtyLines).putLong(memoryBytes).putLong(capacityBytes)
                .putLong(misses).putLong(fills).putLong(fillBytes).putLong(writeBackLines).putLong(diffs).putLong(diffBytes)
                .putLong(acquires).putLong(invalidations).putLong(evictions).putLong(backgroundWriteBacks);
        }
        static CacheReport decode(WireReader r) {
            return new CacheReport(r.getLong(), r.getLong(), r.getLong(), r.getLong(), r.getLong(), r.getLong(), r.getLong(),
                r.getLong(), r.getLong(), r.getLong(), r.getLong(), r.getLong(), r.getLong(), r.getLong(), r.getLong());
        }
    }

    /**
     * {@code seg_ctl(CMI_SEG_STATUS)} of an import: the node asks the home for the segment's
     * break and state. Answered with {@link SegmentReply}.
     *
     * @param segId the proxy's id at this node
     */
    record ImportStatus(long segId) implements ControlMessage {
        public MessageType type() { return MessageType.IMPORT_STATUS; }
        public void encode(WireWriter w) { w.putLong(segId); }
        static ImportStatus decode(WireReader r) { return new ImportStatus(r.getLong()); }
    }

    /** The context is leaving by {@code fini}: a clean end, not a death (one-way, no reply). */
    record Goodbye() implements ControlMessage {
        public MessageType type() { return MessageType.GOODBYE; }
        public void encode(WireWriter w) { }
        static Goodbye decode(WireReader r) { return new Goodbye(); }
    }

    // ---- replies ----

    /**
     * Reply to {@link Hello}.
     *
     * @param sessionId id of this context at the node
     * @param nodeAddress the node's address bytes
     * @param nodeName the node's name
     * @param cacheLineSize the node's cache line size
     */
    record HelloReply(long sessionId, byte[] nodeAddress, String nodeName, long cacheLineSize) implements ControlMessage {
        public MessageType type() { return MessageType.HELLO_REPLY; }
        public void encode(WireWriter w) { w.putLong(sessionId).putBytes(nodeAddress).putString(nodeName).putLong(cacheLineSize); }
        static HelloReply decode(WireReader r) { return new HelloReply(r.getLong(), r.getBytes(MAX_STRING), r.getString(MAX_STRING), r.getLong()); }
    }

    /** Success without a value. */
    record Ok() implements ControlMessage {
        public MessageType type() { return MessageType.OK; }
        public void encode(WireWriter w) { }
        static Ok decode(WireReader r) { return new Ok(); }
    }

    /** Failure. @param code CmiError ordinal @param message what went wrong */
    record ErrorReply(int code, String message) implements ControlMessage {
        public MessageType type() { return MessageType.ERROR; }
        public void encode(WireWriter w) { w.putInt(code).putString(message); }
        static ErrorReply decode(WireReader r) { return new ErrorReply(r.getInt(), r.getString(MAX_STRING)); }
    }

    /** A segment. @param segment its descriptor */
    record SegmentReply(SegmentDescriptor segment) implements ControlMessage {
        public MessageType type() { return MessageType.SEGMENT; }
        public void encode(WireWriter w) { segment.encode(w); }
        static SegmentReply decode(WireReader r) { return new SegmentReply(SegmentDescriptor.decode(r)); }
    }

    /** Reply to {@link SegAttach}. @param attachId the attach @param segment its segment */
    record Attached(long attachId, SegmentDescriptor segment) implements ControlMessage {
        public MessageType type() { return MessageType.ATTACHED; }
        public void encode(WireWriter w) { w.putLong(attachId); segment.encode(w); }
        static Attached decode(WireReader r) { return new Attached(r.getLong(), SegmentDescriptor.decode(r)); }
    }

    /** A number. @param value the number */
    record LongValue(long value) implements ControlMessage {
        public MessageType type() { return MessageType.LONG_VALUE; }
        public void encode(WireWriter w) { w.putLong(value); }
        static LongValue decode(WireReader r) { return new LongValue(r.getLong()); }
    }

    /** Opaque bytes (a handle). @param value the bytes */
    record BytesValue(byte[] value) implements ControlMessage {
        public MessageType type() { return MessageType.BYTES_VALUE; }
        public void encode(WireWriter w) { w.putBytes(value); }
        static BytesValue decode(WireReader r) { return new BytesValue(r.getBytes(MAX_STRING)); }
    }

    /** Several numbers (CMI_CTL_INFO in {@code CmiInfo} component order). @param values the numbers */
    record LongsValue(long[] values) implements ControlMessage {
        public MessageType type() { return MessageType.LONGS_VALUE; }
        public void encode(WireWriter w) { w.putInt(values.length); for (long v : values) { w.putLong(v); } }
        static LongsValue decode(WireReader r) {
            int n = r.getCount(MAX_LIST);
            if (n > r.remaining() / 8) {
                throw new WireFormatException(n + " longs announced, " + r.remaining() + " bytes left");
            }
            long[] v = new long[n];
            for (int i = 0; i < v.length; i++) { v[i] = r.getLong(); }
            return new LongsValue(v);
        }
    }

    /** A reservation. @param key rsv_key @param reserved bytes reserved @param allocated bytes allocated */
    record ReservationReply(long key, long reserved, long allocated) implements ControlMessage {
        public MessageType type() { return MessageType.RESERVATION; }
        public void encode(WireWriter w) { w.putLong(key).putLong(reserved).putLong(allocated); }
        static ReservationReply decode(WireReader r) { return new ReservationReply(r.getLong(), r.getLong(), r.getLong()); }
    }

    /** Result of CMI_SEG_CHECK. @param found a range needs recovery @param offset its start @param size its length */
    record RangeReply(boolean found, long offset, long size) implements ControlMessage {
        public MessageType type() { return MessageType.RANGE; }
        public void encode(WireWriter w) { w.putBoolean(found).putLong(offset).putLong(size); }
        static RangeReply decode(WireReader r) { return new RangeReply(r.getBoolean(), r.getLong(), r.getLong()); }
    }

    /** A table for {@code cmiadm}. @param columns header @param rows rows of the same width */
    record Table(List<String> columns, List<List<String>> rows) implements ControlMessage {
        public MessageType type() { return MessageType.TABLE; }
        public void encode(WireWriter w) {
            putStrings(w, columns);
            w.putInt(rows.size());
            for (List<String> row : rows) { putStrings(w, row); }
        }
        static Table decode(WireReader r) {
            List<String> columns = getStrings(r);
            int n = r.getCount(MAX_LIST);
            List<List<String>> rows = new ArrayList<>(Math.min(n, 1024));
            for (int i = 0; i < n; i++) { rows.add(getStrings(r)); }
            return new Table(columns, rows);
        }
    }

    /**
     * A proxy segment (an import).
     *
     * @param local the proxy as a segment of this node
     * @param home the home node's address bytes
     * @param homeSegmentId the segment's id at the home
     * @param writeThrough uncached import
     * @param token the token set for it, or empty
     */
    record ProxyReply(SegmentDescriptor local, byte[] home, long homeSegmentId, boolean writeThrough, byte[] token)
            implements ControlMessage {
        public MessageType type() { return MessageType.PROXY; }
        public void encode(WireWriter w) { local.encode(w); w.putBytes(home).putLong(homeSegmentId).putBoolean(writeThrough).putBytes(token); }
        static ProxyReply decode(WireReader r) {
            return new ProxyReply(SegmentDescriptor.decode(r), r.getBytes(MAX_STRING), r.getLong(), r.getBoolean(), r.getBytes(MAX_STRING));
        }
    }

    /** Reply to {@link SegAttach} of a proxy. @param attachId the attach @param proxy the proxy */
    record ProxyAttached(long attachId, ProxyReply proxy) implements ControlMessage {
        public MessageType type() { return MessageType.PROXY_ATTACHED; }
        public void encode(WireWriter w) { w.putLong(attachId); proxy.encode(w); }
        static ProxyAttached decode(WireReader r) { return new ProxyAttached(r.getLong(), ProxyReply.decode(r)); }
    }

    // ---- notices (node to client, correlation id 0) ----

    /**
     * A CMI event for the context (see {@code CmiEventType} ordinals).
     *
     * @param eventType CmiEventType ordinal
     * @param requestId CMAP request id (0 for others and for unsolicited maps)
     * @param segmentIds segments the event names
     * @param nodes node addresses the event names (dead context's node, disconnected nodes)
     * @param contextId the dead context's id, for context-down events
     * @param offsets offsets, for store failures
     */
    record EventNotice(int eventType, long requestId, List<Long> segmentIds, List<byte[]> nodes, long contextId,
            List<Long> offsets) implements ControlMessage {
        public MessageType type() { return MessageType.EVENT_NOTICE; }
        public void encode(WireWriter w) {
            w.putInt(eventType).putLong(requestId);
            putLongs(w, segmentIds);
            w.putInt(nodes.size());
            for (byte[] n : nodes) { w.putBytes(n); }
            w.putLong(contextId);
            putLongs(w, offsets);
        }
        static EventNotice decode(WireReader r) {
            int type = r.getInt();
            long requestId = r.getLong();
            List<Long> segs = getLongs(r);
            int n = r.getCount(MAX_LIST);
            List<byte[]> nodes = new ArrayList<>(Math.min(n, 1024));
            for (int i = 0; i < n; i++) { nodes.add(r.getBytes(MAX_STRING)); }
            return new EventNotice(type, requestId, segs, nodes, r.getLong(), getLongs(r));
        }
    }

    /** The node is shutting down; the connection closes next. @param reason why */
    record NodeShutdown(String reason) implements ControlMessage {
        public MessageType type() { return MessageType.NODE_SHUTDOWN; }
        public void encode(WireWriter w) { w.putString(reason); }
        static NodeShutdown decode(WireReader r) { return new NodeShutdown(r.getString(MAX_STRING)); }
    }

    /**
     * The node declared a home node dead: access to segments imported from it fails with
     * {@code CMI_ERROR_SINVAL} from now on.
     *
     * @param node the dead node's address bytes
     */
    record HomeDownNotice(byte[] node) implements ControlMessage {
        public MessageType type() { return MessageType.HOME_DOWN_NOTICE; }
        public void encode(WireWriter w) { w.putBytes(node); }
        static HomeDownNotice decode(WireReader r) { return new HomeDownNotice(r.getBytes(MAX_STRING)); }
    }

    /**
     * The ranges of one of the node's segments that are in flux (cmi(7) "Consistent data"):
     * local access to them throws {@code CMI_ERROR_CONSIST} until recovered. Replaces the
     * previous list; an empty list means none.
     *
     * @param segId the segment
     * @param ranges start and end offsets, in pairs, sorted
     */
    record FluxNotice(long segId, List<Long> ranges) implements ControlMessage {
        public MessageType type() { return MessageType.FLUX_NOTICE; }
        public void encode(WireWriter w) { w.putLong(segId); putLongs(w, ranges); }
        static FluxNotice decode(WireReader r) { return new FluxNotice(r.getLong(), getLongs(r)); }
    }

    /** The token of a proxy changed (set by its importer). @param segId proxy @param token new token bytes */
    record TokenNotice(long segId, byte[] token) implements ControlMessage {
        public MessageType type() { return MessageType.TOKEN_NOTICE; }
        public void encode(WireWriter w) { w.putLong(segId).putBytes(token); }
        static TokenNotice decode(WireReader r) { return new TokenNotice(r.getLong(), r.getBytes(MAX_STRING)); }
    }

    /**
     * Notification extension: a notification for a segment this context created.
     *
     * @param segId the segment's id at this node
     * @param offset offset the sender named
     * @param value the sender's value
     * @param sender the sender's node address bytes, or only its 16-byte node id if the home does
     *        not know where that node listens
     */
    record NotificationNotice(long segId, long offset, long value, byte[] sender) implements ControlMessage {
        public MessageType type() { return MessageType.NOTIFICATION_NOTICE; }
        public void encode(WireWriter w) { w.putLong(segId).putLong(offset).putLong(value).putBytes(sender); }
        static NotificationNotice decode(WireReader r) {
            return new NotificationNotice(r.getLong(), r.getLong(), r.getLong(), r.getBytes(MAX_STRING));
        }
    }
}
