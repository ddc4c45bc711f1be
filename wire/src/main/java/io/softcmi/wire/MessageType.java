package io.softcmi.wire;

import java.util.function.Function;

/**
 * Type ids of the control protocol: requests below 64, replies from 64, notices from 128.
 * The id is the {@code type} byte of a {@link Frame}.
 */
public enum MessageType {
    /** {@link ControlMessage.Hello}. */ HELLO(1, ControlMessage.Hello::decode),
    /** {@link ControlMessage.SegGet}. */ SEG_GET(2, ControlMessage.SegGet::decode),
    /** {@link ControlMessage.SegLookup}. */ SEG_LOOKUP(3, ControlMessage.SegLookup::decode),
    /** {@link ControlMessage.SegAttach}. */ SEG_ATTACH(4, ControlMessage.SegAttach::decode),
    /** {@link ControlMessage.SegDetach}. */ SEG_DETACH(5, ControlMessage.SegDetach::decode),
    /** {@link ControlMessage.SegRemove}. */ SEG_REMOVE(6, ControlMessage.SegRemove::decode),
    /** {@link ControlMessage.SegBreak}. */ SEG_BREAK(7, ControlMessage.SegBreak::decode),
    /** {@link ControlMessage.SegExport}. */ SEG_EXPORT(8, ControlMessage.SegExport::decode),
    /** {@link ControlMessage.RsegDelete}. */ RSEG_DELETE(9, ControlMessage.RsegDelete::decode),
    /** {@link ControlMessage.CtlInfo}. */ CTL_INFO(10, ControlMessage.CtlInfo::decode),
    /** {@link ControlMessage.CacheRsegSet}. */ CACHE_RSEG_SET(11, ControlMessage.CacheRsegSet::decode),
    /** {@link ControlMessage.CacheRsegGet}. */ CACHE_RSEG_GET(12, ControlMessage.CacheRsegGet::decode),
    /** {@link ControlMessage.MemReserve}. */ MEM_RESERVE(13, ControlMessage.MemReserve::decode),
    /** {@link ControlMessage.MemReserveDelete}. */ MEM_RESERVE_DELETE(14, ControlMessage.MemReserveDelete::decode),
    /** {@link ControlMessage.MemReserveSet}. */ MEM_RESERVE_SET(15, ControlMessage.MemReserveSet::decode),
    /** {@link ControlMessage.CmapGet}. */ CMAP_GET(16, ControlMessage.CmapGet::decode),
    /** {@link ControlMessage.SegRecovery}. */ SEG_RECOVERY(17, ControlMessage.SegRecovery::decode),
    /** {@link ControlMessage.AdminList}. */ ADMIN_LIST(18, ControlMessage.AdminList::decode),
    /** {@link ControlMessage.AdminDeleteReservation}. */
    ADMIN_DELETE_RESERVATION(19, ControlMessage.AdminDeleteReservation::decode),
    /** {@link ControlMessage.SegImport}. */ SEG_IMPORT(20, ControlMessage.SegImport::decode),
    /** {@link ControlMessage.TokNew}. */ TOK_NEW(21, ControlMessage.TokNew::decode),
    /** {@link ControlMessage.TokDel}. */ TOK_DEL(22, ControlMessage.TokDel::decode),
    /** {@link ControlMessage.SegSetToken}. */ SEG_SET_TOKEN(23, ControlMessage.SegSetToken::decode),
    /** {@link ControlMessage.TicketRequest}. */ TICKET(24, ControlMessage.TicketRequest::decode),
    /** {@link ControlMessage.TlsTrustRequest}. */ TLS_TRUST(28, ControlMessage.TlsTrustRequest::decode),
    /** {@link ControlMessage.CacheReport} (one-way: no reply). */ CACHE_REPORT(29, ControlMessage.CacheReport::decode),
    /** {@link ControlMessage.Notify} (one-way: no reply). */ NOTIFY(25, ControlMessage.Notify::decode),
    /** {@link PeerMessage.PeerHello}. */ PEER_HELLO(40, PeerMessage.PeerHello::decode),
    /** {@link PeerMessage.PeerChallenge}. */ PEER_CHALLENGE(41, PeerMessage.PeerChallenge::decode),
    /** {@link PeerMessage.PeerProof}. */ PEER_PROOF(42, PeerMessage.PeerProof::decode),
    /** {@link PeerMessage.PeerImport}. */ PEER_IMPORT(43, PeerMessage.PeerImport::decode),
    /** {@link PeerMessage.PeerUnimport}. */ PEER_UNIMPORT(44, PeerMessage.PeerUnimport::decode),
    /** {@link ControlMessage.ImportStatus}. */ IMPORT_STATUS(27, ControlMessage.ImportStatus::decode),
    /** {@link PeerMessage.PeerDescribe}. */ PEER_DESCRIBE(47, PeerMessage.PeerDescribe::decode),
    /** {@link PeerMessage.PeerPing}. */ PEER_PING(45, PeerMessage.PeerPing::decode),
    /** {@link PeerMessage.PeerContextDown}. */ PEER_CONTEXT_DOWN(46, PeerMessage.PeerContextDown::decode),
    /** {@link ControlMessage.Goodbye} (one-way: no reply). */ GOODBYE(26, ControlMessage.Goodbye::decode),
    /** {@link ProcessMessage.ProcSpawn}. */ PROC_SPAWN(48, ProcessMessage.ProcSpawn::decode),
    /** {@link ProcessMessage.ProcKill}. */ PROC_KILL(49, ProcessMessage.ProcKill::decode),
    /** {@link ProcessMessage.ProcStatus}. */ PROC_STATUS(50, ProcessMessage.ProcStatus::decode),
    /** {@link ProcessMessage.RegPut}. */ REG_PUT(51, ProcessMessage.RegPut::decode),
    /** {@link ProcessMessage.RegGet}. */ REG_GET(52, ProcessMessage.RegGet::decode),
    /** {@link ProcessMessage.RegDelete}. */ REG_DELETE(53, ProcessMessage.RegDelete::decode),
    /** {@link ProcessMessage.RegNext}. */ REG_NEXT(54, ProcessMessage.RegNext::decode),
    /** {@link ProcessMessage.Forward}. */ FORWARD(55, ProcessMessage.Forward::decode),

    /** {@link ControlMessage.HelloReply}. */ HELLO_REPLY(64, ControlMessage.HelloReply::decode),
    /** {@link ControlMessage.Ok}. */ OK(65, ControlMessage.Ok::decode),
    /** {@link ControlMessage.ErrorReply}. */ ERROR(66, ControlMessage.ErrorReply::decode),
    /** {@link ControlMessage.SegmentReply}. */ SEGMENT(67, ControlMessage.SegmentReply::decode),
    /** {@link ControlMessage.Attached}. */ ATTACHED(68, ControlMessage.Attached::decode),
    /** {@link ControlMessage.LongValue}. */ LONG_VALUE(69, ControlMessage.LongValue::decode),
    /** {@link ControlMessage.BytesValue}. */ BYTES_VALUE(70, ControlMessage.BytesValue::decode),
    /** {@link ControlMessage.LongsValue}. */ LONGS_VALUE(71, ControlMessage.LongsValue::decode),
    /** {@link ControlMessage.ReservationReply}. */ RESERVATION(72, ControlMessage.ReservationReply::decode),
    /** {@link ControlMessage.RangeReply}. */ RANGE(73, ControlMessage.RangeReply::decode),
    /** {@link ControlMessage.Table}. */ TABLE(74, ControlMessage.Table::decode),
    /** {@link ControlMessage.ProxyReply}. */ PROXY(75, ControlMessage.ProxyReply::decode),
    /** {@link ControlMessage.ProxyAttached}. */ PROXY_ATTACHED(76, ControlMessage.ProxyAttached::decode),

    /** {@link ControlMessage.EventNotice}. */ EVENT_NOTICE(128, ControlMessage.EventNotice::decode),
    /** {@link ControlMessage.NodeShutdown}. */ NODE_SHUTDOWN(129, ControlMessage.NodeShutdown::decode),
    /** {@link ControlMessage.TokenNotice}. */ TOKEN_NOTICE(130, ControlMessage.TokenNotice::decode),
    /** {@link ControlMessage.NotificationNotice}. */
    NOTIFICATION_NOTICE(131, ControlMessage.NotificationNotice::decode),
    /** {@link ControlMessage.HomeDownNotice}. */ HOME_DOWN_NOTICE(132, ControlMessage.HomeDownNotice::decode),
    /** {@link ControlMessage.FluxNotice}. */ FLUX_NOTICE(133, ControlMessage.FluxNotice::decode);

    private static final MessageType[] BY_ID = new MessageType[256];

    static {
        for (MessageType t : values()) {
            BY_ID[t.id] = t;
        }
    }

    private final int id;
    private final Function<WireReader, ? extends ControlMessage> decoder;

    MessageType(int id, Function<WireReader, ? extends ControlMessage> decoder) {
        this.id = id;
        this.decoder = decoder;
    }

    /** @return the frame type byte */
    public int id() {
        return id;
    }

    /**
     * Encodes a message into a frame.
     *
     * @param message the message
     * @param correlationId request id, or 0 for a notice
     * @return the frame
     */
    public static Frame toFrame(ControlMessage message, long correlationId) {
        return toFrame(message, correlationId, 0);
    }

    /**
     * Encodes a message into a frame with header flags.
     *
     * @param message the message
     * @param correlationId request id, or 0 for a notice
     * @param flags the header flags ({@link Frame#FLAG_NODE_WOKE}, {@link Frame#FLAG_NODE_SLOW})
     * @return the frame
     */
    public static Frame toFrame(ControlMessage message, long correlationId, int flags) {
        WireWriter w = new WireWriter();
        message.encode(w);
        return new Frame(message.type().id, flags, correlationId, w.toByteArray());
    }

    /**
     * Decodes a frame's payload, rejecting unknown types and trailing bytes.
     *
     * @param frame the frame
     * @return the message
     * @throws WireFormatException if the frame is malformed
     */
    public static ControlMessage decode(Frame frame) {
        MessageType t = frame.type() >= 0 && frame.type() < 256 ? BY_ID[frame.type()] : null;
        if (t == null) {
            throw new WireFormatException("unknown message type " + frame.type());
        }
        WireReader r = new WireReader(frame.payload());
        ControlMessage m = t.decoder.apply(r);
        r.expectEnd();
        return m;
    }
}
