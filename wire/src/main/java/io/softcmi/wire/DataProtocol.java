package io.softcmi.wire;

import java.nio.ByteBuffer;

/**
 * The remote data path between a process and the home node of a segment it imported, over TCP.
 * Fixed little-endian layouts, written into and read from reused direct buffers, so the hot path
 * allocates nothing. A connection starts with one {@link #OP_HELLO} carrying the process's
 * node ticket and the protocol version; every later request names the segment, the token and
 * the access. Requests are pipelined: a client may send several before reading replies, and the
 * home answers each connection's requests in the order they arrived (so a store is applied
 * before anything sent after it on the same connection), matching replies by request id.
 *
 * <pre>
 * request (client to home), 64-byte header then payload:
 *   0  int   frame length (bytes after this field)
 *   4  byte  op            (HELLO, GET, PUT, CAS, NOTIFY, PROOF, FILL, DIFF, ACQUIRE)
 *   5  byte  flags         (0, or FLAG_AFTER_OK and FLAG_IF_WAITING on a NOTIFY)
 *   6  short reserved
 *   8  long  request id
 *  16  long  home segment id
 *  24  long  token id
 *  32  16B   token secret
 *  48  long  offset; for HELLO, the connection's number within the process's context (0: none)
 *  56  long  a: length for GET, PUT and FILL, compare value for CAS, protocol version for HELLO,
 *            value for NOTIFY, last epoch for ACQUIRE
 *  64  long  b: swap value for CAS, cache id for FILL, DIFF and ACQUIRE; for a PUT that is one
 *            chunk of a larger store, the end offset of the whole store (else 0); for a NOTIFY
 *            with FLAG_IF_WAITING, the offset of its waiters word; for HELLO, the number of the
 *            context's connection this one replaces (0: none)
 *  72  ...   payload: PUT data, DIFF runs, or the HELLO ticket
 *
 * reply (home to client), 24-byte header then payload:
 *   0  int   frame length (bytes after this field)
 *   4  byte  status        (STATUS_*: 0 = done, 1..9 an access error, 253..255 connection-level)
 *   5  3B    reserved
 *   8  long  request id
 *  16  long  value         (CAS: the value before; GET: payload length; HELLO: the home's version;
 *                           ACQUIRE: the segment's epoch; FILL: epoch &lt;&lt; 1 | token grants WRITE)
 *  24  ...   payload: GET or FILL data, ACQUIRE ranges
 * </pre>
 *
 * <p>Opening a connection takes two round trips: HELLO (version, ticket) is answered with
 * {@link #STATUS_CHALLENGE} and a nonce; {@link #OP_PROOF} proves the session key that the
 * client's own daemon gave it with the ticket, so a ticket seen on the wire is useless without
 * that key. Then {@link #STATUS_OK}.
 *
 * <p>Status codes are fixed numbers on the wire, never enum ordinals: the access errors keep
 * their codes when the Java enum changes. A HELLO whose version the home does not speak gets
 * {@link #STATUS_VERSION} with the home's version in {@code value}; a HELLO with a ticket the
 * home does not accept gets {@link #STATUS_REFUSED} (the client fetches a fresh ticket once).
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
    /**
     * Request flag of an {@link #OP_NOTIFY}: deliver it only if the request served just before
     * it on this connection succeeded, else answer that request's status and drop it. A store
     * and its notification sent back to back (one round trip, {@code Notifications.putAndNotify})
     * thus never notify about data that did not land.
     */
    public static final byte FLAG_AFTER_OK = 1;
    /**
     * Request flag of an {@link #OP_NOTIFY}: deliver it only if the 8-byte word at offset
     * {@code b} of the segment (a count of waiters the creator keeps there) is not zero when the
     * home serves it. The home reads the word after a full fence, so with a waiter that counts
     * itself, fences and then re-checks its condition, one of the two sees the other's store
     * (a Dekker handshake): a store and a conditional notification sent back to back wake a
     * sleeping waiter in one round trip and cost a polling one nothing
     * ({@code Notifications.putAndNotifyIfWaiting}). Answered {@link #STATUS_OK} with value 0
     * when not delivered for want of waiters (a delivered one answers as without the flag).
     */
    public static final byte FLAG_IF_WAITING = 2;
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
    /** Reply status to HELLO: the home does not speak the client's protocol version. */
    public static final byte STATUS_VERSION = (byte) 254;
    /** Reply status to HELLO: the ticket is not valid here (expired, other cluster key), or its proof failed. */
    public static final byte STATUS_REFUSED = (byte) 253;
    /**
     * Reply status to a HELLO with a valid ticket: prove that you hold the ticket's session key.
     * The reply's payload is a 16-byte nonce; the client answers with {@link #OP_PROOF}.
     */
    public static final byte STATUS_CHALLENGE = (byte) 252;
    /**
     * The second request of a connection, answering {@link #STATUS_CHALLENGE}: payload is
     * HMAC-SHA256(session key, "data-proof" | nonce), 32 bytes. Only valid during the handshake.
     */
    public static final byte OP_PROOF = 6;
    /**
     * Coherent cache (docs/cache.md): read {@code a} bytes at {@code offset} (one or more whole
     * lines) like {@link #OP_GET}, and register the caller's cache id {@code b} at the home's
     * directory as a reader of those bytes (and as a context that may hold unwritten lines, when
     * the token grants WRITE). Needs READ. The reply's value is the segment's epoch shifted left
     * by one, or'ed with 1 when the token grants WRITE.
     */
    public static final byte OP_FILL = 7;
    /**
     * Coherent cache: apply the payload's runs, each {@code long offset | int length | bytes},
     * in order, then answer; {@code b} is the writer's cache id, logged at the home's directory
     * so other caches invalidate those bytes at their next acquire. Each run needs WRITE over its
     * range; the first refused run ends the request with its status (earlier runs stay applied).
     * The whole frame must fit in {@link #MAX_DIFF_PAYLOAD}.
     */
    public static final byte OP_DIFF = 8;
    /**
     * Coherent cache: an acquire. {@code a} is the caller's last epoch for this segment, {@code b}
     * its cache id. The reply's value is the segment's current epoch and its payload the byte
     * ranges written by anyone else since {@code a}, as pairs {@code long start | long end}
     * (at most {@link #MAX_ACQUIRE_RANGES}; the home answers the whole segment when it cannot say
     * better). Needs a valid token for the segment, no particular right.
     */
    public static final byte OP_ACQUIRE = 9;
    /**
     * Coherent cache: the cache {@code b} was detached with every store it held written back and
     * acknowledged, so the home forgets its record (the bytes it read and wrote, whether it may
     * hold unwritten lines) instead of keeping it until the cache's context ends. Only a record
     * of the asker's own node is forgotten; an unknown cache id is no error. Needs a valid token
     * for the segment, no particular right; no payload. A fill sent after it records the cache
     * again.
     */
    public static final byte OP_FORGET = 10;
    /**
     * Largest payload of an {@link #OP_DIFF} request: it is served from the home's input buffer
     * whole (a connection's buffer grows to hold frames this large when the first one comes).
     * 512 KiB of stored bytes plus room for run headers, so a dense megabyte goes in two frames
     * (docs/cache.md "Write-back"). Version 4 allowed 32 KiB and version 5 256 KiB: a dense
     * megabyte then took four full frames and a fifth of the last runs' 48 header bytes, and each
     * frame paid a request's fixed costs (system calls at both ends, a reply, a loop round and a
     * wake-up at the home).
     */
    public static final int MAX_DIFF_PAYLOAD = 512 * 1024 + 4096;
    /** Most ranges in an {@link #OP_ACQUIRE} reply (16 bytes each). */
    public static final int MAX_ACQUIRE_RANGES = 256;
    /** Bytes of one run header in an {@link #OP_DIFF} payload: offset (8) and length (4). */
    public static final int DIFF_RUN_HEADER = 12;
    /** Bytes of a HELLO challenge's nonce. */
    public static final int NONCE_LENGTH = 16;
    /** Bytes of an {@link #OP_PROOF} payload. */
    public static final int PROOF_LENGTH = 32;
    /** Access error {@code CMI_ERROR_ENABLE}. */
    public static final byte STATUS_ENABLE = 1;
    /** Access error {@code CMI_ERROR_TOKEN}. */
    public static final byte STATUS_TOKEN = 2;
    /** Access error {@code CMI_ERROR_PERM}. */
    public static final byte STATUS_PERM = 3;
    /** Access error {@code CMI_ERROR_SINVAL}. */
    public static final byte STATUS_SINVAL = 4;
    /** Access error {@code CMI_ERROR_UE}. */
    public static final byte STATUS_UE = 5;
    /** Access error {@code CMI_ERROR_TRANSIENT}. */
    public static final byte STATUS_TRANSIENT = 6;
    /** Access error {@code CMI_ERROR_SEG_BRK}. */
    public static final byte STATUS_SEG_BRK = 7;
    /** Access error {@code CMI_ERROR_NOPAGE}. */
    public static final byte STATUS_NOPAGE = 8;
    /** Access error {@code CMI_ERROR_CONSIST}. */
    public static final byte STATUS_CONSIST = 9;
    /**
     * The data protocol version this build speaks (sent in HELLO). Version 1 had no version
     * field; version 2 had no challenge after the HELLO; version 3 had no FILL, DIFF or ACQUIRE;
     * version 4 limited a DIFF's payload to 32 KiB, version 5 to 256 KiB; version 6 had no FORGET;
     * version 7 had no connection numbers in the HELLO (a new connection did not supersede the
     * one it replaced).
     */
    public static final int VERSION = 8;

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
     * Writes a reply header at {@code at} without moving the buffer's position.
     *
     * @param b a little-endian buffer
     * @param at where the header starts
     * @param status reply status
     * @param requestId request id
     * @param value value
     * @param payloadLength bytes of payload that follow
     */
    public static void writeReplyAt(ByteBuffer b, int at, byte status, long requestId, long value, int payloadLength) {
        b.putInt(at, REPLY_HEADER - 4 + payloadLength);
        b.put(at + 4, status).put(at + 5, (byte) 0).putShort(at + 6, (short) 0);
        b.putLong(at + 8, requestId).putLong(at + 16, value);
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

    /**
     * Where a store's last word starts, for writing it after the rest (a reader that polls the
     * last word of a message then sees the whole message): the bytes of the store before the
     * aligned 8-byte word that holds its last byte. Splitting there, and not a fixed number of
     * bytes before the end, keeps every aligned 8-byte word of the store in one copy, so a
     * concurrent 8-byte load never sees half of an 8-byte store (a {@code putLong} is never split).
     *
     * @param offset the store's offset in the segment
     * @param length its length in bytes (at least 1)
     * @return the number of leading bytes to write first; {@code length} if the store lies in one
     *     aligned word (then it is written in one copy)
     */
    public static int bodyBeforeLastWord(long offset, long length) {
        long lastWordStart = (offset + length - 1) & ~7L;
        return lastWordStart <= offset ? (int) length : (int) (lastWordStart - offset);
    }
}
