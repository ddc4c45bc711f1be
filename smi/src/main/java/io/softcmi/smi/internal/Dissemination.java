package io.softcmi.smi.internal;

/**
 * The partners of the dissemination barrier ({@code SMI_Barrier}, {@link Job#barrier}; Hensgen,
 * Finkel and Manber 1988): in round {@code i} of {@code ceil(log2 N)}, process {@code r} posts to
 * {@code (r + 2^i) mod N} and waits for {@code (r - 2^i) mod N}. After the last round every
 * process has heard from every other, directly or through a chain of earlier posts.
 */
final class Dissemination {
    private Dissemination() {
    }

    /**
     * @param n the number of processes (1 to {@link Layout#MAX_PROCS})
     * @return the number of rounds, {@code ceil(log2 n)} (0 for one process)
     */
    static int rounds(int n) {
        return n <= 1 ? 0 : 32 - Integer.numberOfLeadingZeros(n - 1);
    }

    /**
     * @param rank this process
     * @param n the number of processes
     * @param round the round, from 0
     * @return the process this one posts to in that round
     */
    static int to(int rank, int n, int round) {
        return (int) ((rank + (1L << round)) % n);
    }

    /**
     * @param rank this process
     * @param n the number of processes
     * @param round the round, from 0
     * @return the process whose post this one waits for in that round
     */
    static int from(int rank, int n, int round) {
        return (int) Math.floorMod(rank - (1L << round), (long) n);
    }
}
