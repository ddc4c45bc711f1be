package io.softcmi.tools;

import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.internal.NodeChannel;
import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.Frame;
import java.nio.file.Path;

/**
 * An administration session with a node daemon: a control connection that says Hello but makes
 * no CMI calls, so it owns no segments, attaches or reservation. The node lists it among its
 * contexts while it is open (as {@code cmiadm}); closing it ends the session.
 *
 * <p>Failures are {@link io.softcmi.cmi.CmiException}s carrying the node's error code:
 * {@code CMI_ERR_INIT} when no daemon answers at the directory, the node's own code when it
 * refuses a request.
 */
public final class AdminSession implements AutoCloseable {
    private final NodeChannel channel;
    private final ControlMessage.HelloReply hello;

    private AdminSession(NodeChannel channel, ControlMessage.HelloReply hello) {
        this.channel = channel;
        this.hello = hello;
    }

    /**
     * Connects to the daemon serving {@code nodeDirectory} and opens a session.
     *
     * @param nodeDirectory the daemon's {@code --dir} (what {@code SOFTCMI_NODE} names)
     * @param processName how the node lists this session, e.g. {@code "cmiadm"}
     * @return the open session
     * @throws io.softcmi.cmi.CmiException with {@code CMI_ERR_INIT} if no daemon answers there,
     *         or the node's code if it refuses the session
     */
    public static AdminSession open(Path nodeDirectory, String processName) {
        NodeChannel channel = NodeChannel.connect(nodeDirectory);
        try {
            ControlMessage.HelloReply reply = channel.call(new ControlMessage.Hello(Frame.VERSION,
                ProcessHandle.current().pid(), processName, Cmi.LIBRARY_VERSION.verno()),
                ControlMessage.HelloReply.class);
            return new AdminSession(channel, reply);
        } catch (RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /**
     * The name of the node this session talks to.
     *
     * @return the node's name (its {@code cmid --name})
     */
    public String nodeName() {
        return hello.nodeName();
    }

    /**
     * Asks the node for one of its tables.
     *
     * @param table {@code nodes}, {@code contexts}, {@code segments}, {@code exports},
     *              {@code imports}, {@code tokens} or {@code reservations}
     * @return the table, columns and rows as the node reports them
     * @throws io.softcmi.cmi.CmiException with {@code CMI_ERR_INVAL} for an unknown table,
     *         {@code CMI_ERR_INIT} if the connection is lost
     */
    public ControlMessage.Table list(String table) {
        return channel.call(new ControlMessage.AdminList(table), ControlMessage.Table.class);
    }

    /**
     * Deletes a memory reservation by key, as {@code CMI_CTL_MEM_RESERVE_DEL} would for its owner.
     *
     * @param key the reservation key ({@code rsv_key})
     * @throws io.softcmi.cmi.CmiException with {@code CMI_ERR_INVAL} if there is no such
     *         reservation, {@code CMI_ERR_PERM} if it belongs to another user,
     *         {@code CMI_ERR_INIT} if the connection is lost
     */
    public void deleteReservation(long key) {
        channel.call(new ControlMessage.AdminDeleteReservation(key), ControlMessage.Ok.class);
    }

    /** Ends the session. */
    @Override
    public void close() {
        channel.close();
    }
}
