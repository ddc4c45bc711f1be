package io.softcmi.cmi.direct;

import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.internal.DirectViewSupport;
import java.lang.foreign.MemorySegment;

/**
 * Direct views: the memory of a local attach as a {@link MemorySegment}, for code that wants to
 * compute in the shared mapping itself instead of copying through {@code get} and {@code put}. An
 * extension of softcmi, not a libcmi call (see {@code docs/direct.md}).
 *
 * <p>The rules:
 * <ul>
 * <li>Only a <b>local attach</b> ({@code seg_at} of a segment homed on this process's node) has a
 *     view; an attached import is refused (its memory is at its home), and so is an attach of an
 *     extensible segment (its break is checked on every access).</li>
 * <li>The view is the attach's mapping, zero-copy: loads and stores through it and through the
 *     mapping (and through every other local attach of the segment) see the same bytes. A
 *     read-only attach gives a {@linkplain MemorySegment#isReadOnly() read-only} view.</li>
 * <li>It lives as long as the attach: after {@code seg_dt} (or the context's {@code fini}) any
 *     access through it throws {@link IllegalStateException}, as the mapping does.</li>
 * <li>The calling thread must have enabled access ({@code cmi_enb}) when it asks for the view,
 *     and no range of the segment may be in flux. After that the view <b>bypasses</b> the checks
 *     a mapping makes on every access: {@code cmi_enb} ({@code ENABLE}) and ranges in flux
 *     ({@code CONSIST}). A program that disables access, or a segment recovered while the view is
 *     used, is not stopped by it.</li>
 * <li>Memory order is the mapping's: plain loads and stores to the node's shared memory. Barriers
 *     ({@code wmb}, {@code rmb}, {@code mb}, {@code atm_cas}) order them as they order the
 *     mapping's. While a home-local process holds a writable attach, the home answers every
 *     acquire of a cached import of the segment with the whole segment (docs/cache.md), so other
 *     nodes see stores made through the view after their next acquire, as for the mapping.</li>
 * </ul>
 */
public final class DirectViews {
    private DirectViews() {
    }

    /**
     * The memory of a local attach, bytes {@code [0, mapping.size())} of the segment.
     *
     * @param mapping a local attach of this process
     * @return the attach's memory; read-only for a read-only attach; valid until the attach ends
     * @throws io.softcmi.cmi.CmiException INVAL for an attached import, an extensible segment or a
     *         mapping not made by softcmi (and for {@code null})
     * @throws IllegalStateException if the mapping is detached
     * @throws io.softcmi.cmi.CmiAccessException ENABLE if the calling thread has not enabled access;
     *         CONSIST if a range of the segment is in flux
     */
    public static MemorySegment view(CmiMapping mapping) {
        return DirectViewSupport.view(mapping);
    }
}
