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
        Map<String, String> given = parse(System.getenv("VMMCHOSTS") == null ? "" : System.getenv("VMMCHOSTS"));
        try (NodeServices d = reach(hostLocation(host, given), localDir(given))) {
            return new SessionInfo(session, d.get(NodeServices.SESSIONS, session)
                .orElseThrow(() -> new IllegalStateException("no session " + session + " at the daemon of " + host)));
        }
    }

    /** HOST's daemon: its node directory or address from {@code VMMCHOSTS}, else {@code SOFTCMI_NODE}. */
    static String hostLocation(String host, Map<String, String> given) {
        String d = given.get(host);
        if (d != null) {
            return d;
        }
        String node = System.getenv("SOFTCMI_NODE");
        if (node == null || node.isBlank()) {
            throw new IllegalStateException("no daemon for host " + host + ": give it as " + host
                + "=NODE_DIR or " + host + "=NODE_ADDRESS in VMMCHOSTS, or set SOFTCMI_NODE");
        }
        return node;
    }

    /**
     * The daemon this process forwards through to reach hosts given by node address:
     * {@code SOFTCMI_NODE}, else the first host given by node directory.
     */
    static String localDir(Map<String, String> locations) {
        String node = System.getenv("SOFTCMI_NODE");
        if (node != null && !node.isBlank()) {
            return node;
        }
        return locations.values().stream().filter(l -> l != null && !NodeServices.isAddress(l)).findFirst().orElse(null);
    }

    /** @param location a host's node directory or address @param local the daemon to forward through @return a client */
    static NodeServices reach(String location, String local) {
        return NodeServices.reach(location, local, "cfgvmmc");
    }

    /** @param location one of {@link #nodeDirs()}'s values @return a client of that host's daemon */
    NodeServices reach(String location) {
        return reach(location, localDir(nodeDirs()));
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
     * The hosts' daemons, each a node directory or a node address ({@code HEX@HOST:PORT},
     * reached through a local daemon); a host given without one uses {@code SOFTCMI_NODE} if it
     * is the only host.
     *
     * @return host name to node directory or address, for the hosts that have one
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
