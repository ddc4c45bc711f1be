package io.softcmi.smi;

/** A scheduled loop made by {@link Smi#loopInit} (manual §13; not implemented). */
public interface SmiLoop {
    /** @return the next iterations ({@code SMI_Get_iterations}) */
    Iterations getIterations();

    /** {@code SMI_Loop_free}. */
    void free();

    /** {@code SMI_Use_evaluated_speed}. */
    void useEvaluatedSpeed();

    /**
     * {@code SMI_Set_loop_param}.
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
     * @param maxHelpDist the farthest process to help
     */
    void setHelpParam(int maxHelpDist);
}
