package io.softcmi.smi;

/**
 * Iterations handed out by {@link SmiLoop#getIterations()} ({@code SMI_Get_iterations}).
 *
 * @param status where they come from, or {@code READY} when none are left
 * @param low the first iteration
 * @param high the last iteration (inclusive; below {@code low} when none)
 */
public record Iterations(LoopStatus status, int low, int high) {
}
