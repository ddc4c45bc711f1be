package io.softcmi.cmi;

import io.softcmi.cmi.internal.CmiRuntime;

/**
 * Entry point of the CMI library: {@code cmi_ini} and {@code cmi_get_error}.
 *
 * <h2>Which node</h2>
 * A process belongs to one CMI node. If the environment variable {@code SOFTCMI_NODE} or the
 * system property {@code softcmi.node} names a node directory (the {@code --dir} of a running
 * {@code cmid}), {@link #init(CmiVersion, CmiCallbacks)} joins that node. Otherwise it starts an
 * embedded single-process node inside this JVM, unless the system property
 * {@code softcmi.embedded=false} disables that, in which case {@code init} fails with
 * {@link CmiError#INIT}.
 *
 * <h2>Version negotiation</h2>
 * The client asks for the highest version it understands. If it has the same major version as
 * {@link #LIBRARY_VERSION}, the context gets the lower of the two minors; a different major fails
 * with {@link CmiError#NOTSUPP}.
 */
public final class Cmi {
    /** The highest CMI API version this library speaks: 1.1 ({@code verno} 11). */
    public static final CmiVersion LIBRARY_VERSION = new CmiVersion(1, 1);

    /** Not instantiable: static entry points only. */
    private Cmi() {
    }

    /**
     * Implements {@code cmi_ini(verno, NULL)}: the same as {@link #init(CmiVersion, CmiCallbacks)}
     * with no callbacks (tracing of errors only, to the library's default place).
     *
     * @param requested the highest API version the client understands
     * @return the context of this process, associated with the calling thread
     * @throws CmiException with {@link CmiError#NOTSUPP} if the major version differs from the
     *         library's; {@link CmiError#BOUND} if the calling thread is already associated with a
     *         context; {@link CmiError#NOMEM} if out of resources, such as when the maximum number
     *         of contexts is already open; {@link CmiError#INIT} if no node can be joined
     */
    public static CmiContext init(CmiVersion requested) {
        return init(requested, null);
    }

    /**
     * Implements {@code cmi_ini}: initializes the library, negotiates the API version and returns
     * the context of this process. The calling thread is associated with the context as if it had
     * called {@link CmiContext#iniTh()}; it must call {@link CmiContext#fini()} (or
     * {@link CmiContext#close()}) when done. Other threads call {@link CmiContext#iniTh()} first.
     * The context's {@link CmiContext#version()} is the negotiated version (see the class comment).
     *
     * @param requested the highest API version the client understands
     * @param callbacks trace callbacks and what to trace; {@code null} means none (errors only, to
     *                  the library's default place)
     * @return the context of this process, associated with the calling thread
     * @throws CmiException with {@link CmiError#NOTSUPP} if the major version differs from the
     *         library's; {@link CmiError#BOUND} if the calling thread is already associated with a
     *         context; {@link CmiError#NOMEM} if out of resources, such as when the maximum number
     *         of contexts is already open; {@link CmiError#INIT} if no node can be joined
     */
    public static CmiContext init(CmiVersion requested, CmiCallbacks callbacks) {
        return CmiRuntime.init(requested, callbacks);
    }

    /**
     * Implements {@code cmi_get_error}: the error of the last CMI call made by the calling thread.
     * Like the spec, it answers why {@code init} or {@code iniTh} failed even though the thread has
     * no context. Every failure also throws a {@link CmiException} carrying the same code.
     *
     * @return the last error of the calling thread, or {@code null} if its last CMI call succeeded
     *         (or it made none)
     */
    public static CmiError lastError() {
        return CmiRuntime.lastError();
    }
}
