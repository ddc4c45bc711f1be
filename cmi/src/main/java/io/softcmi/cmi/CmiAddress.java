package io.softcmi.cmi;

import java.util.Objects;

/**
 * An address in CMI memory: the Java form of the spec's {@code void *} into an attached segment,
 * as used by {@code cflush} ({@link CmiContext#cflush(java.util.List)}).
 *
 * @param mapping the attachment ({@code seg_at}) the address is in, not null
 * @param offset the byte offset into the segment
 */
public record CmiAddress(CmiMapping mapping, long offset) {
    /**
     * Checks the mapping.
     *
     * @throws NullPointerException if {@code mapping} is null
     */
    public CmiAddress {
        Objects.requireNonNull(mapping, "mapping");
    }
}
