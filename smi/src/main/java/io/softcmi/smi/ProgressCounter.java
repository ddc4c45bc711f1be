package io.softcmi.smi;

/** A progress counter made by {@link Smi#initPc()} (manual §9.2): one non-decreasing value per process. */
public interface ProgressCounter {
    /** {@code SMI_OWN_PC}: wait for the caller's own value. */
    long OWN_PC = Long.MIN_VALUE;

    /** @return the counter id */
    int id();

    /** Implements {@code SMI_Reset_PC}: sets every value to 0 (collective). */
    void reset();

    /**
     * Implements {@code SMI_Increment_PC}.
     *
     * @param val the increment, not negative
     * @throws SmiException {@link SmiError#PARAM} if {@code val} is negative
     */
    void increment(long val);

    /**
     * Implements {@code SMI_Get_PC}.
     *
     * @param rank a process
     * @return its value
     * @throws SmiException {@link SmiError#PARAM} if no such rank
     */
    long get(int rank);

    /**
     * Implements {@code SMI_Wait_individual_PC}.
     *
     * @param rank the process to wait for
     * @param value the value to reach, or {@link #OWN_PC}
     * @throws SmiException {@link SmiError#PARAM} if no such rank; {@link SmiError#OTHER} if that
     *         process entered {@code SMI_Finalize} below the value, so it could never reach it
     *         (checked every 256 polls of the wait). The manual names no code for a partner that finalized; {@code OTHER} is its "error not further stated".
     */
    void waitIndividual(int rank, long value);

    /**
     * Implements {@code SMI_Wait_collective_PC}: waits until every process reached {@code value}.
     *
     * @param value the value, or {@link #OWN_PC}
     * @throws SmiException {@link SmiError#OTHER} if a process entered {@code SMI_Finalize} below
     *         the value (as {@link #waitIndividual})
     */
    void waitCollective(long value);
}
