package io.softcmi.smi.internal;

/**
 * The partners of the dissemination barrier ({@code SMI_Barrier}, {@link Job#barrier}; Hensgen,
 * Finkel and Manber 1988): in round {@code i} of {@code ceil(log2 N)}, the process at position
 * {@code p} posts to position {@code (p + 2^i) mod N} and waits for {@code (p - 2^i) mod N}.
 * After the last round every process has heard from every other, directly or through a chain of
 * earlier posts.
 *
 * <p>Positions are ranks interleaved by node ({@link #order}): the first rank of every node, then
 * the second of every node, and so on. With {@code k} nodes of {@code m} ranks each, partners
 * {@code k}, {@code 2k}, ... positions apart share a node, so with two nodes every round after
 * the first is a post within the node. With ranks in rank order (nodes in blocks), 4 ranks on 2
 * nodes made 6 remote posts in 2 rounds, both rounds with a remote post on every path; interleaved
 * they make 4, all in the first round.
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
     * @param procNode the node of each rank (ranks grouped by node, as {@code smirun} numbers them)
     * @return the barrier's positions: element {@code p} is the rank at position {@code p}, ranks
     *     interleaved by node (the first of each node in node order, then the second, ...)
     */
    static int[] order(int[] procNode) {
        int n = procNode.length;
        int nodes = 0;
        for (int node : procNode) {
            nodes = Math.max(nodes, node + 1);
        }
        int[][] byNode = new int[nodes][];
        int[] count = new int[nodes];
        for (int node : procNode) {
            count[node]++;
        }
        for (int k = 0; k < nodes; k++) {
            byNode[k] = new int[count[k]];
            count[k] = 0;
        }
        for (int r = 0; r < n; r++) {
            byNode[procNode[r]][count[procNode[r]]++] = r;
        }
        int[] order = new int[n];
        int p = 0;
        for (int i = 0; p < n; i++) {
            for (int k = 0; k < nodes; k++) {
                if (i < byNode[k].length) {
                    order[p++] = byNode[k][i];
                }
            }
        }
        return order;
    }

    /**
     * @param rank this process
     * @param procNode the node of each rank
     * @return the rank this process posts to in each round, positions as {@link #order} gives them
     */
    static int[] targets(int rank, int[] procNode) {
        int n = procNode.length;
        int[] order = order(procNode);
        int position = 0;
        while (order[position] != rank) {
            position++;
        }
        int[] targets = new int[rounds(n)];
        for (int round = 0; round < targets.length; round++) {
            targets[round] = order[to(position, n, round)];
        }
        return targets;
    }

    /**
     * @param position this process's position
     * @param n the number of processes
     * @param round the round, from 0
     * @return the position this one posts to in that round
     */
    static int to(int position, int n, int round) {
        return (int) ((position + (1L << round)) % n);
    }

    /**
     * @param position this process's position
     * @param n the number of processes
     * @param round the round, from 0
     * @return the position whose post this one waits for in that round
     */
    static int from(int position, int n, int round) {
        return (int) Math.floorMod(position - (1L << round), (long) n);
    }
}
