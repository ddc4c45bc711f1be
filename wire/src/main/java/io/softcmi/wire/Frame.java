package io.softcmi.wire;

/**
 * One protocol frame: a header and a payload.
 *
 * <pre>
 *   0                   1                   2                   3
 *  +---------------+---------------+---------------+---------------+
 *  |                 length (bytes after this field)               |
 *  +---------------+---------------+-------------------------------+
 *  |    version    |     type      |            flags              |
 *  +---------------+---------------+-------------------------------+
 *  |                      correlation id (64 bits)                 |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                      payload (type-specific) ...              |
 * </pre>
 *
 * All integers are big-endian. A reply carries the correlation id of its request; a notice the
 * node sends on its own carries 0. Flags: {@link #FLAG_NODE_WOKE} and {@link #FLAG_NODE_SLOW} in
 * a reply on a process's control connection; every other bit is reserved, 0, and ignored by
 * readers.
 *
 * @param type message type id (see {@link MessageType})
 * @param flags {@link #FLAG_NODE_WOKE}, {@link #FLAG_NODE_SLOW}, or 0
 * @param correlationId matches replies to requests
 * @param payload the encoded message body
 */
public record Frame(int type, int flags, long correlationId, byte[] payload) {
    /** Protocol version this library speaks. */
    public static final int VERSION = 1;
    /** Bytes of header after the length field. */
    public static final int HEADER_AFTER_LENGTH = 12;
    /** The largest frame accepted: 16 MiB of payload plus the header. */
    public static final int MAX_LENGTH = (16 << 20) + HEADER_AFTER_LENGTH;
    /**
     * In a reply of the node to a process: the node was not polling when the request came (its
     * session thread had parked and had to be woken), so the reply's delay says nothing about
     * whether the process's poll for it could pay ({@code docs/architecture.md} 7.5).
     */
    public static final int FLAG_NODE_WOKE = 1;
    /**
     * In a reply of the node to a process: the node took longer than a poll budget (50 us) from
     * reading the request to writing this reply, so a process that polled for it would have
     * missed it even if the node had been polling ({@code docs/architecture.md} 7.5).
     */
    public static final int FLAG_NODE_SLOW = 2;
}
