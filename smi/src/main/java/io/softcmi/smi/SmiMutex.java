package io.softcmi.smi;

/**
 * A mutex made by {@link Smi#mutexInit()} or {@link Smi#mutexInitWithLocality(int)} (manual §9.1).
 * Queue-based (MCS): a waiter waits on a flag in its own memory, the holder hands the lock on.
 */
public interface SmiMutex {
    /** @return the mutex id */
    int id();

    /**
     * Implements {@code SMI_Mutex_lock}.
     *
     * @throws SmiException {@link SmiError#PARAM} if destroyed; {@link SmiError#OTHER} if the
     *         process this one waits behind entered {@code SMI_Finalize} without unlocking, so
     *         the lock could never come (checked while the wait blocks, every 250 ms or every 256 polls with {@code SMI_WAKER=poll}; the mutex
     *         is unusable afterwards). The manual names no code for a partner that finalized; {@code OTHER} is its "error not further stated".
     */
    void lock();

    /**
     * Implements {@code SMI_Mutex_unlock}.
     *
     * @throws SmiException {@link SmiError#PARAM} if destroyed or not held by this process
     */
    void unlock();

    /**
     * Implements {@code SMI_Mutex_trylock}.
     *
     * @return whether the lock was free and is now held
     * @throws SmiException {@link SmiError#PARAM} if destroyed
     */
    boolean trylock();

    /**
     * Implements {@code SMI_Mutex_destroy} (collective).
     *
     * @throws SmiException {@link SmiError#PARAM} if already destroyed
     */
    void destroy();
}
