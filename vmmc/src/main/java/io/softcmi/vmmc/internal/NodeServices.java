package io.softcmi.vmmc.internal;

import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.internal.NodeChannel;
import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.ProcessMessage;
import io.softcmi.wire.Frame;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A client of a node daemon's process service and registry ({@code docs/architecture.md}
 * "Processes started by the node", "Node registry"): a control connection that says Hello and
 * makes no CMI calls. VMMC's {@code cfgvmmc} and {@code vmmc_Spawn} use it. A host's daemon is
 * reached directly by its node directory, or through a local daemon that forwards the requests
 * over its peer connection ({@link ProcessMessage.Forward}) by the host's node address
 * ({@code HEX_NODE_ID@HOST:PORT}, as {@code cmiadm nodes} prints it).
 *
 * <p>Failures are {@link io.softcmi.cmi.CmiException}s with the node's error code
 * ({@code CMI_ERR_INIT} if no daemon answers at the directory).
 */
public final class NodeServices implements AutoCloseable {
    /** Registry space of VMMC sessions ({@code cmiadm sessions} lists it). */
    public static final String SESSIONS = "session";
    /** Registry space of VMMC run group counters (one per session). */
    public static final String RUNS = "vmmc.run";
    private static final java.util.regex.Pattern ADDRESS = java.util.regex.Pattern.compile("([0-9a-fA-F]{32})@(.+):(\\d+)");
    private final NodeChannel channel;
    private final byte[] target;

    private NodeServices(NodeChannel channel, byte[] target) {
        this.channel = channel;
        this.target = target;
    }

    /**
     * Tells a node address from a node directory.
     *
     * @param location a node directory or a node address
     * @return whether it is a node address {@code HEX_NODE_ID@HOST:PORT}
     */
    public static boolean isAddress(String location) {
        return ADDRESS.matcher(location).matches();
    }

    /**
     * Reaches a host's daemon: by its node directory, or by its node address through the daemon
     * of {@code localNodeDirectory}.
     *
     * @param location the host's node directory or node address
     * @param localNodeDirectory the daemon to forward through (for an address)
     * @param processName how the node lists the connection
     * @return the client
     * @throws IllegalStateException if an address is given and no local daemon
     */
    public static NodeServices reach(String location, String localNodeDirectory, String processName) {
        java.util.regex.Matcher m = ADDRESS.matcher(location);
        if (!m.matches()) {
            return open(Path.of(location), processName);
        }
        if (localNodeDirectory == null || localNodeDirectory.isBlank()) {
            throw new IllegalStateException("no local daemon (SOFTCMI_NODE) to reach node " + location + " through");
        }
        byte[] target = new io.softcmi.cmi.internal.NodeAddressImpl(java.util.HexFormat.of().parseHex(m.group(1)), m.group(2),
            Integer.parseInt(m.group(3))).toBytes();
        NodeServices local = open(Path.of(localNodeDirectory), processName);
        return new NodeServices(local.channel, target);
    }

    private <T extends ControlMessage> T call(ControlMessage request, Class<T> replyType) {
        return channel.call(target == null ? request : ProcessMessage.Forward.of(target, request), replyType);
    }

    /**
     * Connects to the daemon serving a node directory.
     *
     * @param nodeDirectory the daemon's {@code --dir} ({@code SOFTCMI_NODE})
     * @param processName how the node lists the connection among its contexts
     * @return the client
     */
    public static NodeServices open(Path nodeDirectory, String processName) {
        NodeChannel channel = NodeChannel.connect(nodeDirectory);
        try {
            channel.call(new ControlMessage.Hello(Frame.VERSION, ProcessHandle.current().pid(), processName,
                Cmi.LIBRARY_VERSION.verno()), ControlMessage.HelloReply.class);
            return new NodeServices(channel, null);
        } catch (RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /**
     * Has the node start a process ({@link ProcessMessage.ProcSpawn}).
     *
     * @param group run group
     * @param name label for listings
     * @param argv command and arguments
     * @param env {@code KEY=VALUE} additions, {@code KEY} removals
     * @param workDir working directory, or null
     * @param log file for stdout and stderr together, or null to discard them
     * @return {@code [logicalPid, osPid]}
     */
    public long[] spawn(String group, String name, List<String> argv, List<String> env, Path workDir, Path log) {
        String l = log == null ? "" : log.toAbsolutePath().toString();
        return call(new ProcessMessage.ProcSpawn(group, name, argv, env,
            workDir == null ? "" : workDir.toAbsolutePath().toString(), l, l), ControlMessage.LongsValue.class).values();
    }

    /**
     * Ends running processes of a group.
     *
     * @param group the group
     * @param logicalPid one of them, or 0 for all
     * @return the number signalled
     */
    public long kill(String group, long logicalPid) {
        return call(new ProcessMessage.ProcKill(group, logicalPid), ControlMessage.LongValue.class).value();
    }

    /**
     * @param logicalPid a process the node started
     * @return {@code [osPid, running (1/0), exitCode]}
     */
    public long[] status(long logicalPid) {
        return call(new ProcessMessage.ProcStatus(logicalPid), ControlMessage.LongsValue.class).values();
    }

    /**
     * Stores a record.
     *
     * @param space kind
     * @param key name
     * @param fields fields in order
     * @param create fail if it exists
     */
    public void put(String space, String key, Map<String, String> fields, boolean create) {
        List<String> f = new ArrayList<>();
        fields.forEach((k, v) -> f.add(k + "=" + v));
        call(new ProcessMessage.RegPut(space, key, f, create), ControlMessage.Ok.class);
    }

    /**
     * @param space kind
     * @param key name
     * @return the record's fields, if it exists
     */
    public Optional<Map<String, String>> get(String space, String key) {
        ControlMessage.Table t = call(new ProcessMessage.RegGet(space, key), ControlMessage.Table.class);
        if (t.rows().isEmpty()) {
            return Optional.empty();
        }
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < t.columns().size(); i++) {
            m.put(t.columns().get(i), t.rows().getFirst().get(i));
        }
        return Optional.of(m);
    }

    /** @param space kind @param key name @return whether it existed */
    public boolean delete(String space, String key) {
        return call(new ProcessMessage.RegDelete(space, key), ControlMessage.LongValue.class).value() != 0;
    }

    /** @param space kind @param key name @return the counter's next value (1 first) */
    public long next(String space, String key) {
        return call(new ProcessMessage.RegNext(space, key), ControlMessage.LongValue.class).value();
    }

    /** @param table a {@code cmiadm} table ({@code runs}, {@code sessions}) @return it */
    public ControlMessage.Table list(String table) {
        return call(new ControlMessage.AdminList(table), ControlMessage.Table.class);
    }

    @Override
    public void close() {
        channel.close();
    }
}
