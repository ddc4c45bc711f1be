package io.softcmi.vmmc.cluster;

import io.softcmi.vmmc.internal.NodeServices;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A VMMC session as the daemons keep it (registry space {@code session}): user, drive (working
 * directory root), network share (recorded only), output directory, hosts ({@code VMMCHOSTS}
 * form) and the share directory of the receive-buffer directory.
 *
 * @param name the session
 * @param fields its record
 */
record SessionInfo(String name, Map<String, String> fields) {
    static SessionInfo of(String name, Map<String, String> fields) {
        return new SessionInfo(name, Map.copyOf(fields));
    }

    /** The share directory of this process: {@code VMMCSHARE}, default {@code $TMPDIR/vmmc}. */
    static Path localShare() {
        String env = System.getenv("VMMCSHARE") != null ? System.getenv("VMMCSHARE")
            : System.getProperty("java.io.tmpdir") + "/vmmc";
        return Path.of(System.getProperty("vmmc.share", env));
    }

    /**
     * Reads a session from HOST's daemon.
     *
     * @param host the host {@code cfgvmmc} names
     * @param session the session
     * @return it
     * @throws IllegalStateException if HOST has no daemon this process knows or the session does not exist
     */
    static SessionInfo load(String host, String session) {
        String dir = hostDir(host);
        try (NodeServices d = NodeServices.open(Path.of(dir), "cfgvmmc")) {
            return new SessionInfo(session, d.get(NodeServices.SESSIONS, session)
                .orElseThrow(() -> new IllegalStateException("no session " + session + " at the daemon of " + host)));
        }
    }

    /** HOST's node directory: from {@code VMMCHOSTS} ({@code HOST=DIR}), else {@code SOFTCMI_NODE}. */
    private static String hostDir(String host) {
        String hosts = System.getenv("VMMCHOSTS");
        if (hosts != null) {
            String d = parse(hosts).get(host);
            if (d != null) {
                return d;
            }
        }
        String node = System.getenv("SOFTCMI_NODE");
        if (node == null || node.isBlank()) {
            throw new IllegalStateException("no daemon for host " + host + ": give it as " + host
                + "=NODE_DIR in VMMCHOSTS or set SOFTCMI_NODE");
        }
        return node;
    }

    private static Map<String, String> parse(String hosts) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String e : hosts.split(",")) {
            String t = e.trim();
            if (!t.isEmpty()) {
                int eq = t.indexOf('=');
                m.put(eq < 0 ? t : t.substring(0, eq), eq < 0 ? null : t.substring(eq + 1));
            }
        }
        return m;
    }

    String user() {
        return fields.getOrDefault("user", "");
    }

    String drive() {
        return fields.getOrDefault("drive", "/");
    }

    Path outDir() {
        return Path.of(fields.getOrDefault("outdir", "."));
    }

    Path share() {
        return Path.of(fields.getOrDefault("share", localShare().toString()));
    }

    String hostsSetting() {
        return fields.getOrDefault("hosts", "");
    }

    /** @return the host names in order */
    List<String> hosts() {
        return new ArrayList<>(parse(hostsSetting()).keySet());
    }

    /**
     * The hosts' node directories; a host given without one uses {@code SOFTCMI_NODE} if it is
     * the only host.
     *
     * @return host name to node directory, for the hosts that have one
     */
    Map<String, String> nodeDirs() {
        Map<String, String> out = new LinkedHashMap<>();
        Map<String, String> all = parse(hostsSetting());
        String node = System.getenv("SOFTCMI_NODE");
        all.forEach((h, d) -> {
            if (d != null) {
                out.put(h, d);
            } else if (all.size() == 1 && node != null && !node.isBlank()) {
                out.put(h, node);
            }
        });
        return out;
    }
}
