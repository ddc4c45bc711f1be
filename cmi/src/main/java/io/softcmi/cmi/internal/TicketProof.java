package io.softcmi.cmi.internal;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Node tickets bound to their session: a daemon hands each of its processes a ticket (which
 * node, which session, until when, under the cluster key's MAC) together with a session key
 * derived from it under the cluster key. A home that accepts the ticket challenges the process
 * to prove the session key ({@code DataProtocol.OP_PROOF}), which only the process and the
 * daemons know. A ticket copied off the wire, or out of a log, therefore opens nothing.
 */
public final class TicketProof {
    /** Bytes of a node ticket. */
    public static final int TICKET_LENGTH = 64;
    /** Bytes of a session key. */
    public static final int KEY_LENGTH = 32;

    private TicketProof() {
    }

    /**
     * @param key HMAC key
     * @param purpose domain separation
     * @param parts what is authenticated
     * @return HMAC-SHA256
     */
    public static byte[] hmac(byte[] key, String purpose, byte[]... parts) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            mac.update(purpose.getBytes(StandardCharsets.US_ASCII));
            for (byte[] p : parts) {
                mac.update(p);
            }
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    /**
     * @param sessionKey the key that came with the ticket
     * @param nonce the home's challenge
     * @return the proof to send
     */
    public static byte[] proof(byte[] sessionKey, byte[] nonce) {
        return hmac(sessionKey, "data-proof", nonce);
    }

    /**
     * @param sessionKey the key derived from the ticket
     * @param nonce the challenge sent
     * @param proof what the client answered
     * @return whether it proves the key (constant time)
     */
    public static boolean verify(byte[] sessionKey, byte[] nonce, byte[] proof) {
        return MessageDigest.isEqual(proof(sessionKey, nonce), proof);
    }

    /** @return the ticket part of what a daemon hands out (ticket, then session key) */
    static byte[] ticket(byte[] credentials) {
        return Arrays.copyOf(credentials, Math.min(credentials.length, TICKET_LENGTH));
    }

    /** @return the session-key part of what a daemon hands out, empty if there is none */
    static byte[] sessionKey(byte[] credentials) {
        return credentials.length <= TICKET_LENGTH ? new byte[0] : Arrays.copyOfRange(credentials, TICKET_LENGTH, credentials.length);
    }
}
