package io.softcmi.cmi;

/**
 * A flush epoch: the spec's {@code cmi_fb}, opened by {@code open_fb} ({@link CmiContext#openFb()})
 * for the calling thread. While it is open the library tracks the thread's stores to remote
 * segments so that they can be written back to their home nodes. A thread has at most one open
 * epoch; use it from the thread that opened it.
 */
public interface FlushEpoch extends AutoCloseable {
    /**
     * Implements {@code flush_fb}: writes every store made by the thread since {@code open_fb} or
     * the previous {@code flush_fb} back to the home nodes, synchronously. The same as
     * {@link CmiContext#flushFb(FlushEpoch)} with this epoch.
     *
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         the context; {@link CmiError#INVAL} if the epoch is closed or not the thread's;
     *         {@link CmiError#STORE} if stores could not be flushed (network or remote failure,
     *         data may be lost); {@link CmiError#HW} if a local hardware error prevented flushing
     */
    void flush();

    /**
     * Implements {@code close_fb}: flushes as {@link #flush()} does, then closes the epoch. The same
     * as {@link CmiContext#closeFb(FlushEpoch)} with this epoch.
     *
     * @throws CmiException with {@link CmiError#INIT} if the calling thread is not associated with
     *         the context; {@link CmiError#INVAL} if the epoch is already closed or not the thread's;
     *         {@link CmiError#STORE} if a write-back of a cached import failed (the epoch is closed
     *         all the same); never {@code HW} (softcmi has no hardware to report)
     */
    @Override
    void close();
}
