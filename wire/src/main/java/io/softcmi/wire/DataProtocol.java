package io.softcmi.wire;

import java.nio.ByteBuffer;

/**
 * The remote data path between a process and the home node of a segment it imported, over TCP.
 * Fixed little-endian layouts, written into and read from reused direct buffers, so the hot path
 * allocates nothing. A connection starts with one {@link #OP_HELLO} carrying the process's
 * node ticket; every later request names the segment, the token and the access.
 *
 * <pre>
 * request (client to home), 64-byte header then payload:
 *   0  int   frame length (bytes after this field)
 *   4  byte  op            (HELLO, GET, PUT, CAS, NOTIFY)
 *   5  byte  flags         (0)
 *   6  short reserved
 *   8  long  request id
 *  16  long  home segment id
 *  24  long  token id
 *  32  16B   token secret
 *  48  long  offset
 *  56  long  a: length for GET and PUT, compare value for CAS, value for NOTIFY
 *  64  long  b: swap value for CAS
 *  72  ...   payload: PUT data, or the HELLO ticket
 *
 * reply (home to client), 24-byte header then payload:
 *   0  int   frame length (bytes after this field)
 *   4  byte  status        (0 = done, else 1 + CmiAccessError ordinal; 255 = malformed request)
 *   5  3B    reserved
 *   8  long  request id
 *  16  long  value         (CAS: the value before; GET: payload length)
 *  24  ...   payload: GET data
 * </pre>
 */
public final class DataProtocol {
    /** Open the data session: payload is the node ticket. */
    public static final byte OP_HELLO = 1;
    /** Read {@code a} bytes at {@code offset}. */
    public static final byte OP_GET = 2;
    /** Write the payload at {@code offset}. */
    public static final byte OP_PUT = 3;
    /** Compare-and-swap the 8 bytes at {@code offset}: compare {@code a}, swap {@code b}. */
    public static final byte OP_CAS = 4;
    /**
     * Deliver the notification {@code (offset, a)} to the segment's creator (notification
     * extension): checked like a PUT of 8 bytes at {@code offset}, no payload; served after
     * every earlier request of the same connection.
     */
    public static final byte OP_NOTIFY = 5;
    /** Bytes of request header. */
    public static final int REQUEST_HEADER = 72;
    /** Bytes of reply header. */
    public static final int REPLY_HEADER = 24;
    /** Largest payload of one request or reply: bulk transfers are split into chunks of this size. */
    public static final int MAX_PAYLOAD = 1 << 20;
    /** Reply status: done. */
    public static final byte STATUS_OK = 0;
    /** Reply status: the request was malformed; the home closes the connection after it. */
    public static final byte STATUS_MALFORMED = (byte) 255;

    private DataProtocol() {
    }

    /**
     * Writes a request header (position 0) and leaves the buffer positioned after it, ready for the payload.
     *
     * @param b a little-endian buffer
     * @param op operation
     * @param requestId request id
     * @param segmentId home segment id
     * @param tokenId token id
     * @param secretHi first 8 bytes of the token secret
     * @param secretLo last 8 bytes of the token secret
     * @param offset offset in the segment
     * @param a length or compare value
     * @param bValue swap value
     * @param payloadLength bytes of payload that follow
     */
    public static void writeRequest(ByteBuffer b, byte op, long requestId, long segmentId, long tokenId, long secretHi,
            long secretLo, long offset, long a, long bValue, int payloadLength) {
        b.clear();
        b.putInt(0, REQUEST_HEADER - 4 + payloadLength);
        b.put(4, op).put(5, (byte) 0).putShort(6, (short) 0);
        b.putLong(8, requestId).putLong(16, segmentId).putLong(24, tokenId).putLong(32, secretHi).putLong(40, secretLo)
            .putLong(48, offset).putLong(56, a).putLong(64, bValue);
        b.position(REQUEST_HEADER);
    }

    /**
     * Writes a reply header and positions the buffer after it.
     *
     * @param b a little-endian buffer
     * @param status reply status
     * @param requestId request id
     * @param value value
     * @param payloadLength bytes of payload that follow
     */
    public static void writeReply(ByteBuffer b, byte status, long requestId, long value, int payloadLength) {
        b.clear();
        b.putInt(0, REPLY_HEADER - 4 + payloadLength);
        b.put(4, status).put(5, (byte) 0).putShort(6, (short) 0);
        b.putLong(8, requestId).putLong(16, value);
        b.position(REPLY_HEADER);
    }

    /**
     * Validates a request frame length read from the wire.
     *
     * @param frameLength the length field
     * @return the payload length
     * @throws WireFormatException if out of range
     */
    public static int requestPayload(int frameLength) {
        int payload = frameLength - (REQUEST_HEADER - 4);
        if (payload < 0 || payload > MAX_PAYLOAD) {
            throw new WireFormatException("bad data request length " + frameLength);
        }
        return payload;
    }

    /**
     * Validates a reply frame length read from the wire.
     *
     * @param frameLength the length field
     * @return the payload length
     * @throws WireFormatException if out of range
     */
    public static int replyPayload(int frameLength) {
        int payload = frameLength - (REPLY_HEADER - 4);
        if (payload < 0 || payload > MAX_PAYLOAD) {
            throw new WireFormatException("bad data reply length " + frameLength);
        }
        return payload;
    }

    /** Bytes of payload a session's own buffers hold: tickets and typed values; bulk data bypasses them. */
    public static final int SMALL_PAYLOAD = 4096;

    /**
     * A session's header buffer: bulk payloads are read and written straight from and to the
     * caller's memory or the segment's mapping, so this only needs room for headers, tickets
     * and typed values.
     *
     * @return a direct little-endian buffer
     */
    public static ByteBuffer newBuffer() {
        return ByteBuffer.allocateDirect(REQUEST_HEADER + SMALL_PAYLOAD).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    }
}
