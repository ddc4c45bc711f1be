package io.softcmi.smi.internal;

import io.softcmi.smi.SmiError;

/**
 * The job's placement of processes on nodes as {@code SMI_Proc_rank}, {@code SMI_Node_rank},
 * {@code SMI_Local_proc_*}, {@code SMI_Proc_to_node}, {@code SMI_First_proc_on_node} and
 * {@code SMI_Get_node_name} answer it, read from the job environment {@code smirun} set.
 */
public final class Topology {
    private final Job job;

    /** @param job the job */
    public Topology(Job job) {
        this.job = job;
    }

    /** @return {@code SMI_Node_rank} */
    public int nodeRank() {
        return job.env().procNode()[job.rank()];
    }

    /** @return {@code SMI_Local_proc_rank}: the rank among this node's processes */
    public int localProcRank() {
        return job.rank() - firstProcOnNode(nodeRank());
    }

    /**
     * {@code SMI_Proc_to_node}.
     *
     * @param rank a process
     * @return its node's rank
     */
    public int procToNode(int rank) {
        return job.env().procNode()[Errors.checkRank(rank, job.size(), "proc_rank")];
    }

    /** @return {@code SMI_Local_proc_size}: processes on this node */
    public int localProcSize() {
        return procsOn(nodeRank());
    }

    /** @return {@code SMI_Max_local_proc_size} */
    public int maxLocalProcSize() {
        int max = 0;
        for (int n = 0; n < job.env().nodeSize(); n++) {
            max = Math.max(max, procsOn(n));
        }
        return max;
    }

    private int procsOn(int node) {
        int c = 0;
        for (int p : job.env().procNode()) {
            if (p == node) {
                c++;
            }
        }
        return c;
    }

    /**
     * {@code SMI_First_proc_on_node}.
     *
     * @param node a node rank
     * @return the lowest process rank on it
     */
    public int firstProcOnNode(int node) {
        int first = job.env().firstProcOn(node);
        if (first < 0) {
            throw Errors.fail(SmiError.PARAM, "no node " + node);
        }
        return first;
    }

    /** @return {@code SMI_Get_node_name}: the name smirun gave this node */
    public String nodeName() {
        return job.env().nodeNames().get(nodeRank());
    }
}
