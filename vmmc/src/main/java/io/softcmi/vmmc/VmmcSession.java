package io.softcmi.vmmc;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The session a process joins, from its environment: {@code VMMCSESSION} (name, default
 * {@code default}), {@code VMMCHOSTS} (comma-separated {@code NAME}, {@code NAME=NODE_DIR} or
 * {@code NAME=HEX_NODE_ID@HOST:PORT} entries, the node directory being the {@code SOFTCMI_NODE}
 * of that host's daemon, the node address its address as {@code cmiadm nodes} prints it;
 * default this host), {@code VMMCHOST} (this process's host, default the first), {@code VMMCPID} (a fixed
 * pid, else the lowest free), {@code VMMCPARENT} ({@code HOST:PID} of a spawning process),
 * {@code VMMCSHARE} (the share directory, default {@code $TMPDIR/vmmc}) and {@code VMMCOUTDIR}
 * (where spawned processes' logs go, default the working directory). Java system properties of
 * the same names in lower case ({@code vmmc.session} ...) take precedence.
 */
final class VmmcSession {
    private final String name;
    private final List<VmmcNode> hosts;
    private final Map<String, String> nodeDirs;
    private final VmmcNode me;
    private final int fixedPid;
    private final String parent;
    private final Path share;
    private final Path outDir;
    private volatile int pid;

    VmmcSession(String name, List<VmmcNode> hosts, Map<String, String> nodeDirs, VmmcNode me, int fixedPid, String parent,
            Path share, Path outDir) {
        this.name = name;
        this.hosts = List.copyOf(hosts);
        this.nodeDirs = nodeDirs;
        this.me = me;
        this.fixedPid = fixedPid;
        this.parent = parent;
        this.share = share;
        this.outDir = outDir;
    }

    static String setting(String env) {
        String p = System.getProperty(env.toLowerCase().replace("vmmc", "vmmc."));
        return p != null ? p : System.getenv(env);
    }

    static VmmcSession fromEnvironment() {
        String name = Optional.ofNullable(setting("VMMCSESSION")).orElse("default");
        String hostList = setting("VMMCHOSTS");
        if (hostList == null || hostList.isBlank()) {
            hostList = "localhost";
        }
        List<VmmcNode> hosts = new ArrayList<>();
        Map<String, String> dirs = new HashMap<>();
        for (String entry : hostList.split(",")) {
            String e = entry.trim();
            if (e.isEmpty()) {
                continue;
            }
            int eq = e.indexOf('=');
            String host = eq < 0 ? e : e.substring(0, eq);
            if (eq >= 0) {
                dirs.put(host, e.substring(eq + 1));
            }
            hosts.add(new VmmcNode(hosts.size() + 1, host));
        }
        String myHost = setting("VMMCHOST");
        VmmcNode me = hosts.getFirst();
        if (myHost != null) {
            me = hosts.stream().filter(n -> n.name().equals(myHost)).findFirst()
                .orElseThrow(() -> new VmmcException(VmmcResult.NO_SUCH_NODE, "VMMCHOST " + myHost + " is not in VMMCHOSTS"));
        }
        String pidText = setting("VMMCPID");
        int fixed = pidText == null || pidText.isBlank() ? 0 : Integer.parseInt(pidText.trim());
        Path share = Path.of(Optional.ofNullable(setting("VMMCSHARE")).orElse(System.getProperty("java.io.tmpdir") + "/vmmc"));
        Path out = Path.of(Optional.ofNullable(setting("VMMCOUTDIR")).orElse("."));
        return new VmmcSession(name, hosts, dirs, me, fixed, setting("VMMCPARENT"), share, out);
    }

    String name() {
        return name;
    }

    List<VmmcNode> hosts() {
        return hosts;
    }

    VmmcNode me() {
        return me;
    }

    int fixedPid() {
        return fixedPid;
    }

    int pid() {
        return pid;
    }

    void pid(int p) {
        this.pid = p;
    }

    Path share() {
        return share;
    }

    Path outDir() {
        return outDir;
    }

    Optional<String> nodeDir(VmmcNode n) {
        return Optional.ofNullable(nodeDirs.get(n.name()));
    }

    /** The host list as given, for a spawned child. */
    String hostsSetting() {
        StringBuilder sb = new StringBuilder();
        for (VmmcNode n : hosts) {
            sb.append(sb.isEmpty() ? "" : ",").append(n.name());
            String d = nodeDirs.get(n.name());
            if (d != null) {
                sb.append('=').append(d);
            }
        }
        return sb.toString();
    }

    VmmcNode check(VmmcNode n) {
        if (n == null) {
            throw new VmmcException(VmmcResult.NO_SUCH_NODE, "null node");
        }
        return hosts.stream().filter(h -> h.id() == n.id()).findFirst()
            .orElseThrow(() -> new VmmcException(VmmcResult.NO_SUCH_NODE, String.valueOf(n)));
    }

    Optional<ProcessId> parent() {
        if (parent == null || parent.isBlank()) {
            return Optional.empty();
        }
        int colon = parent.lastIndexOf(':');
        String host = parent.substring(0, colon);
        VmmcNode n = hosts.stream().filter(h -> h.name().equals(host)).findFirst().orElse(new VmmcNode(0, host));
        return Optional.of(new ProcessId(n, new VmmcPid(Integer.parseInt(parent.substring(colon + 1)))));
    }
}
