package io.softcmi.cmi.internal;

import io.softcmi.cmi.CmiToken;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * An access token ({@code cmi_token}): the home node, the segment, the token's id and 128
 * random bits that the home checks on every remote access. It holds no secret of the daemon.
 *
 * @param homeNodeId the home node's id
 * @param segmentId the segment at the home
 * @param tokenId the token's id at the home
 * @param boundNodeId the node the token was made for, all zero for {@code CMI_NADDR_ANY}
 * @param secret 16 random bytes
 */
public record TokenImpl(byte[] homeNodeId, long segmentId, long tokenId, byte[] boundNodeId, byte[] secret)
        implements CmiToken {
    /** Length of a token's secret. */
    public static final int SECRET_LENGTH = 16;

    /**
     * Validates and copies the components.
     *
     * @param homeNodeId 16 bytes
     * @param segmentId segment id
     * @param tokenId token id
     * @param boundNodeId 16 bytes
     * @param secret 16 bytes
     */
    public TokenImpl {
        if (homeNodeId.length != NodeAddressImpl.ID_LENGTH || boundNodeId.length != NodeAddressImpl.ID_LENGTH
                || secret.length != SECRET_LENGTH) {
            throw new IllegalArgumentException("bad token");
        }
        homeNodeId = homeNodeId.clone();
        boundNodeId = boundNodeId.clone();
        secret = secret.clone();
    }

    @Override
    public byte[] boundNodeId() {
        return boundNodeId.clone();
    }

    /** @return whether the token is for any node ({@code CMI_NADDR_ANY}) */
    public boolean anyNode() {
        for (byte b : boundNodeId) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    /** @return the secret's first 8 bytes as a big-endian long (for the data path) */
    public long secretHi() {
        return java.nio.ByteBuffer.wrap(secret).getLong(0);
    }

    /** @return the secret's last 8 bytes as a big-endian long (for the data path) */
    public long secretLo() {
        return java.nio.ByteBuffer.wrap(secret).getLong(8);
    }

    @Override
    public byte[] homeNodeId() {
        return homeNodeId.clone();
    }

    @Override
    public byte[] secret() {
        return secret.clone();
    }

    /**
     * Compares secrets in constant time.
     *
     * @param other bytes to compare with
     * @return whether they are this token's secret
     */
    public boolean secretMatches(byte[] other) {
        return MessageDigest.isEqual(secret, other);
    }

    @Override
    public byte[] toBytes() {
        return HandleCodec.encode(this);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TokenImpl t && Arrays.equals(homeNodeId, t.homeNodeId) && segmentId == t.segmentId
            && tokenId == t.tokenId && Arrays.equals(boundNodeId, t.boundNodeId) && Arrays.equals(secret, t.secret);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(tokenId) * 31 + Long.hashCode(segmentId);
    }

    @Override
    public String toString() {
        // Never print the secret.
        return "token#" + tokenId + "(segment " + segmentId + " at " + HexFormat.of().formatHex(homeNodeId, 0, 4) + ")";
    }
}
