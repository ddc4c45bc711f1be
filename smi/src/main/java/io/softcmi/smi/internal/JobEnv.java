package io.softcmi.smi.internal;

import io.softcmi.smi.SmiError;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * What {@code smirun} tells a rank about its job, through the environment:
 * <pre>
 *   SMI_RANK            this process's rank
 *   SMI_SIZE            number of processes
 *   SMI_PROC_NODES      the node rank of every process, comma-separated (ranks of a node consecutive)
 *   SMI_NODE_NAMES      the name of every node, comma-separated
 *   SMI_BOOTSTRAP       the job's bootstrap segment: hex of its SegmentRef entry
 *   SMI_NOLOCAL         1: import segments of this node too (smirun -nolocal)
 *   SMI_DEBUG           1: debug output (smirun -debug)
 *   SMI_WATCHDOG        watchdog timeout in seconds (default 30)
 * </pre>
 * Without {@code SMI_RANK} the process is a job of its own: one rank, one node.
 *
 * @param rank this process
 * @param size processes
 * @param procNode node rank of each process
 * @param nodeNames name of each node
 * @param bootstrap the bootstrap segment, or null to create one (a job of one process)
 * @param noLocal import this node's segments too
 * @param debug debug output
 * @param watchdogSeconds watchdog timeout
 */
public record JobEnv(int rank, int size, int[] procNode, List<String> nodeNames, SegmentRef bootstrap, boolean noLocal,
        boolean debug, int watchdogSeconds) {
    /** Environment variable names. */
    public static final String RANK = "SMI_RANK";
    /** @see #RANK */
    public static final String SIZE = "SMI_SIZE";
    /** @see #RANK */
    public static final String PROC_NODES = "SMI_PROC_NODES";
    /** @see #RANK */
    public static final String NODE_NAMES = "SMI_NODE_NAMES";
    /** @see #RANK */
    public static final String BOOTSTRAP = "SMI_BOOTSTRAP";
    /** @see #RANK */
    public static final String NOLOCAL = "SMI_NOLOCAL";
    /** @see #RANK */
    public static final String DEBUG = "SMI_DEBUG";
    /** @see #RANK */
    public static final String WATCHDOG = "SMI_WATCHDOG";
    /** Default watchdog timeout in seconds. */
    public static final int DEFAULT_WATCHDOG = 30;

    /** Copies the array. */
    public JobEnv {
        procNode = procNode.clone();
        nodeNames = List.copyOf(nodeNames);
    }

    /**
     * Reads the environment.
     *
     * @param env the environment
     * @param hostName this host's name, for a job of one process
     * @return the job
     */
    public static JobEnv from(Map<String, String> env, String hostName) {
        boolean debug = "1".equals(env.get(DEBUG));
        boolean noLocal = "1".equals(env.get(NOLOCAL));
        int wd = parse(env.getOrDefault(WATCHDOG, Integer.toString(DEFAULT_WATCHDOG)), WATCHDOG);
        if (env.get(RANK) == null) {
            return new JobEnv(0, 1, new int[] {0}, List.of(hostName), null, noLocal, debug, wd);
        }
        int rank = parse(env.get(RANK), RANK);
        int size = parse(env.getOrDefault(SIZE, ""), SIZE);
        int[] nodes = Arrays.stream(env.getOrDefault(PROC_NODES, "").split(",")).mapToInt(s -> parse(s, PROC_NODES))
            .toArray();
        List<String> names = List.of(env.getOrDefault(NODE_NAMES, hostName).split(","));
        if (size < 1 || size > Layout.MAX_PROCS || rank < 0 || rank >= size || nodes.length != size) {
            throw Errors.fail(SmiError.PARAM, "inconsistent job environment (rank " + rank + ", size " + size + ")");
        }
        for (int i = 0; i < size; i++) {
            if (nodes[i] < 0 || nodes[i] >= names.size() || (i > 0 && nodes[i] < nodes[i - 1])) {
                throw Errors.fail(SmiError.PARAM, SMI_PROC_NODES_MSG);
            }
        }
        String boot = env.get(BOOTSTRAP);
        if (boot == null) {
            throw Errors.fail(SmiError.PARAM, BOOTSTRAP + " is not set");
        }
        SegmentRef ref = SegmentRef.decode(java.lang.foreign.MemorySegment.ofArray(HexFormat.of().parseHex(boot)));
        if (ref == null) {
            throw Errors.fail(SmiError.PARAM, BOOTSTRAP + " is not a segment descriptor");
        }
        return new JobEnv(rank, size, nodes, names, ref, noLocal, debug, wd);
    }

    private static final String SMI_PROC_NODES_MSG = PROC_NODES + " must list non-decreasing node ranks";

    private static int parse(String s, String what) {
        try {
            return Integer.parseInt(s.strip());
        } catch (NumberFormatException e) {
            throw Errors.fail(SmiError.PARAM, what + " is not a number: " + s);
        }
    }

    /** @return the number of nodes */
    public int nodeSize() {
        return procNode[size - 1] + 1;
    }

    /**
     * @param node a node rank
     * @return the lowest rank of a process on {@code node} (ranks of a node are consecutive), or
     *         -1 if none runs there
     */
    public int firstProcOn(int node) {
        for (int r = 0; r < procNode.length; r++) {
            if (procNode[r] == node) {
                return r;
            }
        }
        return -1;
    }

    /**
     * Encodes a bootstrap descriptor for {@link #BOOTSTRAP}.
     *
     * @param ref the descriptor
     * @return hex text
     */
    static String encode(SegmentRef ref) {
        java.lang.foreign.MemorySegment e = ref.encode();
        e.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, SegmentRef.STATE, 1);
        int used = 40 + ref.node().length + ref.handle().length + ref.token().length;
        return HexFormat.of().formatHex(e.asSlice(0, used).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
    }
}
