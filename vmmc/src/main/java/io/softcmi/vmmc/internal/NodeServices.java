package io.softcmi.vmmc.internal;

import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.internal.NodeChannel;
import io.softcmi.wire.ControlMessage;
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
 * makes no CMI calls. VMMC's {@code cfgvmmc} and {@code vmmc_Spawn} use it; one per host's
 * daemon (the daemon does not forward these requests to other nodes).
 *
 * <p>Failures are {@link io.softcmi.cmi.CmiException}s with the node's error code
 * ({@code CMI_ERR_INIT} if no daemon answers at the directory).
 */
public final class NodeServices implements AutoCloseable {
    /** Registry space of VMMC sessions ({@code cmiadm sessions} lists it). */
    public static final String SESSIONS = "session";
    /** Registry space of VMMC run group counters (one per session). */
    public static final String RUNS = "vmmc.run";
    private final NodeChannel channel;

    private NodeServices(NodeChannel channel) {
        this.channel = channel;
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
            return new NodeServices(channel);
        } catch (RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /**
     * Has the node start a process ({@link ControlMessage.ProcSpawn}).
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
        return channel.call(new ControlMessage.ProcSpawn(group, name, argv, env,
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
        return channel.call(new ControlMessage.ProcKill(group, logicalPid), ControlMessage.LongValue.class).value();
    }

    /**
     * @param logicalPid a process the node started
     * @return {@code [osPid, running (1/0), exitCode]}
     */
    public long[] status(long logicalPid) {
        return channel.call(new ControlMessage.ProcStatus(logicalPid), ControlMessage.LongsValue.class).values();
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
        channel.call(new ControlMessage.RegPut(space, key, f, create), ControlMessage.Ok.class);
    }

    /**
     * @param space kind
     * @param key name
     * @return the record's fields, if it exists
     */
    public Optional<Map<String, String>> get(String space, String key) {
        ControlMessage.Table t = channel.call(new ControlMessage.RegGet(space, key), ControlMessage.Table.class);
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
        return channel.call(new ControlMessage.RegDelete(space, key), ControlMessage.LongValue.class).value() != 0;
    }

    /** @param space kind @param key name @return the counter's next value (1 first) */
    public long next(String space, String key) {
        return channel.call(new ControlMessage.RegNext(space, key), ControlMessage.LongValue.class).value();
    }

    /** @param table a {@code cmiadm} table ({@code runs}, {@code sessions}) @return it */
    public ControlMessage.Table list(String table) {
        return channel.call(new ControlMessage.AdminList(table), ControlMessage.Table.class);
    }

    @Override
    public void close() {
        channel.close();
    }
}
