package io.softcmi.node;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import javax.crypto.Mac;

/**
 * The cluster key daemons share ({@code --cluster-key FILE}) and what is built on it: the peer
 * challenge/response (HMAC-SHA256 over the other side's nonce; the key never travels) and node
 * tickets, which prove to a home node which node a process belongs to.
 *
 * <p>Without a key file a node draws a random key: it trusts only itself.
 *
 * <pre>
 * ticket: node id (16) | session id (8) | expiry, epoch ms (8) | HMAC-SHA256(key, the 32 bytes before) (32)
 * </pre>
 */
final class ClusterKey {
    static final int TICKET_LENGTH = 16 + 8 + 8 + 32;
    /** Default lifetime of a node ticket. */
    static final long DEFAULT_TICKET_LIFETIME_MS = 24L * 3600 * 1000;
    private final byte[] key;
    private final long ticketLifetimeMs;

    private ClusterKey(byte[] key, long ticketLifetimeMs) {
        this.key = key;
        this.ticketLifetimeMs = ticketLifetimeMs;
    }

    static ClusterKey load(Path file) throws IOException {
        return load(file, DEFAULT_TICKET_LIFETIME_MS);
    }

    /**
     * Loads the cluster key (a random one, trusted by nobody else, when there is no file).
     *
     * @param file the key file, which must not grant anything to group or others
     * @param ticketLifetimeMs how long the node tickets this node issues stay valid
     * @return the key
     * @throws IOException if the file is unreadable, too short or too open
     */
    static ClusterKey load(Path file, long ticketLifetimeMs) throws IOException {
        if (file == null) {
            byte[] k = new byte[32];
            new SecureRandom().nextBytes(k);
            return new ClusterKey(k, ticketLifetimeMs);
        }
        var perms = Files.getPosixFilePermissions(file);
        perms.removeAll(java.util.EnumSet.of(java.nio.file.attribute.PosixFilePermission.OWNER_READ,
            java.nio.file.attribute.PosixFilePermission.OWNER_WRITE));
        if (!perms.isEmpty()) {
            throw new IOException("cluster key file " + file + " must have mode 0600 (or 0400): it also grants "
                + java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        }
        byte[] k = Files.readAllBytes(file);
        if (k.length < 16) {
            throw new IOException("cluster key file " + file + " holds fewer than 16 bytes");
        }
        return new ClusterKey(k, ticketLifetimeMs);
    }

    byte[] mac(String purpose, byte[]... parts) {
        return io.softcmi.cmi.internal.TicketProof.hmac(key, purpose, parts);
    }

    boolean verify(byte[] expectedMac, String purpose, byte[]... parts) {
        return MessageDigest.isEqual(expectedMac, mac(purpose, parts));
    }

    byte[] issueTicket(byte[] nodeId, long sessionId) {
        ByteBuffer b = ByteBuffer.allocate(TICKET_LENGTH);
        b.put(nodeId).putLong(sessionId).putLong(System.currentTimeMillis() + ticketLifetimeMs);
        byte[] body = Arrays.copyOf(b.array(), 32);
        b.put(mac("ticket", body));
        return b.array();
    }

    /**
     * The session key that goes with a ticket: the daemon that issued the ticket hands it to its
     * process beside the ticket, and any daemon with the cluster key derives it again to check
     * the process's proof ({@link io.softcmi.cmi.internal.TicketProof}).
     *
     * @param ticket a ticket
     * @return its session key
     */
    byte[] sessionKey(byte[] ticket) {
        return mac("session-key", Arrays.copyOf(ticket, 32));
    }

    /**
     * Checks a ticket.
     *
     * @param ticket the bytes a process presented
     * @return the node id it proves, or null if it is forged, expired or malformed
     */
    byte[] verifyTicket(byte[] ticket) {
        if (ticket == null || ticket.length != TICKET_LENGTH) {
            return null;
        }
        byte[] body = Arrays.copyOf(ticket, 32);
        if (!verify(Arrays.copyOfRange(ticket, 32, TICKET_LENGTH), "ticket", body)) {
            return null;
        }
        if (ByteBuffer.wrap(ticket).getLong(24) < System.currentTimeMillis()) {
            return null;
        }
        return Arrays.copyOf(ticket, 16);
    }
}
