package io.softcmi.smi;

/**
 * A scheduled loop made by {@link Smi#loopInit} (manual §13). Use:
 * <pre>
 *   Iterations it;
 *   do {
 *       it = loop.getIterations();
 *       for (int i = it.low(); i &lt;= it.high(); i++) { ... }   // i += procSize for CYCLIC
 *   } while (it.status() != LoopStatus.READY);
 * </pre>
 * Methods throw {@link SmiException} with {@link SmiError#PARAM} once the loop is freed.
 */
public interface SmiLoop {
    /** {@code SMI_NO_CHANGE}: leave a parameter of {@link #setParam} as it is. */
    int NO_CHANGE = 0;
    /** {@code SMI_HELP_ONLY_SMP}: in the remote phase, help processes of the same node only. */
    int HELP_ONLY_SMP = -1;

    /**
     * {@code SMI_Get_iterations}: the next chunk; the first call of each run of the loop is a
     * global synchronization point.
     *
     * @return the iterations, {@code READY} (with {@code low > high}) when none are left
     */
    Iterations getIterations();

    /** {@code SMI_Loop_free} (collective). */
    void free();

    /**
     * {@code SMI_Use_evaluated_speed}: the first run's blocks follow {@link Smi#evaluateSpeed()}.
     *
     * @throws SmiException {@link SmiError#PARAM} if the speeds were not evaluated
     */
    void useEvaluatedSpeed();

    /**
     * {@code SMI_Set_loop_param}; {@link #NO_CHANGE} keeps a value.
     *
     * @param k the balancing factor
     * @param minLocal minimum local chunk
     * @param minRemote minimum remote chunk
     * @param maxLocal maximum local chunk
     * @param maxRemote maximum remote chunk
     */
    void setParam(double k, int minLocal, int minRemote, int maxLocal, int maxRemote);

    /**
     * {@code SMI_Set_loop_help_param}.
     *
     * @param maxHelpDist how many other processes (nearest ranks first) to help, or {@link #HELP_ONLY_SMP}
     */
    void setHelpParam(int maxHelpDist);
}
