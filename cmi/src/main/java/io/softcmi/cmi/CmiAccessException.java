package io.softcmi.cmi;

import java.util.Objects;

/**
 * A CMI access exception: the Java form of the spec's {@code SIGSEGV} with {@code si_code}
 * {@code SEGV_CMI}. It is thrown in the accessing thread only, by loads, stores and bulk copies
 * on a {@link CmiMapping}, by {@code atm_cas}, and by softcmi's extensions that access a mapping
 * ({@code Notifications}, {@code DirectViews.view}, an inlet's {@code openInlet} and a route's
 * sends). {@code cflush} reports a failed write-back as a {@link CmiException} ({@code STORE}).
 *
 * <p>Because it is thrown on the data path it carries no stack trace and no suppressed exceptions.
 * Accesses that are not a CMI matter (offset outside the mapping, mapping detached) are plain
 * {@link IndexOutOfBoundsException}s / {@link IllegalStateException}s instead, so that they are
 * distinguishable from CMI access errors as the spec asks.
 */
public class CmiAccessException extends RuntimeException {
    /** Serialization version. */
    private static final long serialVersionUID = 1L;

    /** The spec's {@code si_errno}. */
    private final CmiAccessError accessError;
    /** The spec's {@code si_id}. */
    private final long segmentId;
    /** The spec's {@code si_addr}, as an offset into the segment. */
    private final long offset;

    /**
     * Creates an access exception.
     *
     * @param accessError the spec's {@code si_errno}, not null
     * @param segmentId the spec's {@code si_id}: {@link CmiSegment#id()} of the faulting segment
     * @param offset the spec's {@code si_addr}: the faulting byte offset into the segment
     */
    public CmiAccessException(CmiAccessError accessError, long segmentId, long offset) {
        super(Objects.requireNonNull(accessError, "accessError").specName()
                + " on segment " + segmentId + " at offset " + offset, null, false, false);
        this.accessError = accessError;
        this.segmentId = segmentId;
        this.offset = offset;
    }

    /**
     * The kind of access error (the spec's {@code si_errno}).
     *
     * @return the access error, never null
     */
    public CmiAccessError accessError() {
        return accessError;
    }

    /**
     * The faulting segment (the spec's {@code si_id}).
     *
     * @return the {@link CmiSegment#id()} of the segment the access was made to
     */
    public long segmentId() {
        return segmentId;
    }

    /**
     * The faulting address (the spec's {@code si_addr}), as a byte offset into the segment.
     *
     * @return the offset of the access that failed
     */
    public long offset() {
        return offset;
    }
}
