package io.softcmi.smi.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where the processes of a job run: the hosts from {@code -nodes}, the machine file (searched as
 * the manual says: {@code -machinefile}, {@code ./machines}, {@code ~/.machines},
 * {@code $SMI_HOME/util/machines}, else all on this machine), one process per host from top to
 * bottom (wrapping around when {@code -np} exceeds the hosts). Processes are then ordered by node
 * name, so that the ranks of one node are consecutive (as {@code SMI_Init} guarantees).
 * <p>A host is this machine ({@code localhost}, {@code 127.0.0.1}, {@code ::1} or this host's
 * name), a pseudo-host {@code local:NAME} (this machine, but a node of its own with its own
 * {@code cmid}: several nodes on one machine), or another machine (reached over {@code ssh} or,
 * in a Slurm allocation, {@code srun}).
 *
 * @param nodes the nodes, in node-rank order
 * @param procNode the node rank of each process
 * @param source where the hosts came from (for {@code -v})
 */
public record Plan(List<Node> nodes, int[] procNode, String source) {
    /** Pseudo-host prefix. */
    public static final String PSEUDO = "local:";

    /** How a node is reached. */
    public enum Kind {
        /** This machine's node (the running {@code cmid} of {@code SOFTCMI_NODE}, or one started for the job). */
        LOCAL,
        /** A node of its own on this machine ({@code local:NAME}). */
        PSEUDO,
        /** Another machine. */
        REMOTE
    }

    /**
     * A node of the job.
     *
     * @param name its name (the host as given)
     * @param kind how it is reached
     * @param firstRank its lowest process rank
     * @param procs its number of processes
     */
    public record Node(String name, Kind kind, int firstRank, int procs) {
    }

    /** Copies. */
    public Plan {
        nodes = List.copyOf(nodes);
        procNode = procNode.clone();
    }

    /** @return the number of processes */
    public int size() {
        return procNode.length;
    }

    /**
     * Works out the plan.
     *
     * @param o the options
     * @param cwd the working directory
     * @param home the user's home directory
     * @param smiHome {@code $SMI_HOME}, or null
     * @param localNames names of this machine
     * @return the plan
     * @throws RunOptions.UsageException if no host can be found or a file cannot be read
     */
    public static Plan of(RunOptions o, Path cwd, Path home, String smiHome, Set<String> localNames)
            throws RunOptions.UsageException {
        List<String> hosts;
        String source;
        if (!o.nodes().isEmpty()) {
            hosts = o.nodes();
            source = "-nodes";
        } else {
            Path file = machineFile(o, cwd, home, smiHome);
            if (file == null) {
                hosts = List.of("localhost");
                source = "this machine (no machine file)";
            } else {
                hosts = read(file);
                source = file.toString();
            }
        }
        for (String h : hosts) {
            if (h.startsWith(PSEUDO) && !h.substring(PSEUDO.length()).matches("[A-Za-z0-9._-]{1,40}")) {
                throw new RunOptions.UsageException("pseudo-host " + h + ": the name after 'local:' must be 1-40 of"
                    + " [A-Za-z0-9._-]");
            }
        }
        int np = o.np() > 0 ? o.np() : hosts.size();
        List<String> perRank = new ArrayList<>();
        for (int i = 0; i < np; i++) {
            perRank.add(hosts.get(i % hosts.size()));
        }
        // Group by node: one node per distinct host, local aliases folded; this machine's nodes
        // first (rank 0 must be here: the bootstrap segment is made on its node), then the other
        // hosts, each group sorted by name.
        Map<String, String> key = new LinkedHashMap<>();
        for (String h : perRank) {
            key.putIfAbsent(canonical(h, localNames), h);
        }
        List<String> keys = new ArrayList<>(key.keySet());
        keys.sort(Comparator.comparing((String k) -> !k.equals(LOCAL_KEY) && !k.startsWith(PSEUDO))
            .thenComparing(Comparator.naturalOrder()));
        List<Node> nodes = new ArrayList<>();
        int[] procNode = new int[np];
        int rank = 0;
        for (int n = 0; n < keys.size(); n++) {
            String k = keys.get(n);
            int count = 0;
            for (String h : perRank) {
                if (canonical(h, localNames).equals(k)) {
                    procNode[rank++] = n;
                    count++;
                }
            }
            String name = key.get(k);
            Kind kind = k.equals(LOCAL_KEY) ? Kind.LOCAL : name.startsWith(PSEUDO) ? Kind.PSEUDO : Kind.REMOTE;
            nodes.add(new Node(name, kind, rank - count, count));
        }
        return new Plan(nodes, procNode, source);
    }

    private static final String LOCAL_KEY = "localhost";

    private static String canonical(String host, Set<String> localNames) {
        if (host.startsWith(PSEUDO)) {
            return host;
        }
        return localNames.contains(host) ? LOCAL_KEY : host;
    }

    private static Path machineFile(RunOptions o, Path cwd, Path home, String smiHome) throws RunOptions.UsageException {
        if (o.machineFile() != null) {
            Path p = cwd.resolve(o.machineFile());
            if (!Files.isReadable(p)) {
                throw new RunOptions.UsageException("cannot read machine file " + p);
            }
            return p;
        }
        List<Path> candidates = new ArrayList<>(List.of(cwd.resolve("machines"), home.resolve(".machines")));
        if (smiHome != null && !smiHome.isEmpty()) {
            candidates.add(Path.of(smiHome, "util", "machines"));
        }
        for (Path p : candidates) {
            if (Files.isReadable(p)) {
                return p;
            }
        }
        return null;
    }

    private static List<String> read(Path file) throws RunOptions.UsageException {
        List<String> hosts = new ArrayList<>();
        try {
            for (String l : Files.readAllLines(file)) {
                String h = l.strip();
                if (!h.isEmpty()) {
                    hosts.add(h);
                }
            }
        } catch (IOException e) {
            throw new RunOptions.UsageException("cannot read machine file " + file + ": " + e.getMessage());
        }
        if (hosts.isEmpty()) {
            throw new RunOptions.UsageException("machine file " + file + " names no host");
        }
        return hosts;
    }
}
