package io.softcmi.wire;

import static io.softcmi.wire.WireLists.putStrings;
import static io.softcmi.wire.WireLists.getStrings;

import java.util.List;

/**
 * Requests of the node's process service ({@code docs/architecture.md} "Processes started by
 * the node") and node registry, and {@link Forward}, which passes one of them to a peer daemon.
 * Framed and answered like every {@link ControlMessage}.
 */
public sealed interface ProcessMessage extends ControlMessage {
    /**
     * Process service ({@code docs/architecture.md} "Processes started by the node"): the node
     * starts a process for the client with {@link ProcessBuilder}; it outlives the client and
     * the node ends it at shutdown. Answered with {@link LongsValue} {@code [logicalPid, osPid]}.
     * Strings are length-prefixed UTF-8 (a 32-bit length, then the bytes), lists a 32-bit count
     * then the strings:
     *
     * <pre>
     *  +-----------+-----------+-----------+-----------+-----------+-----------+-----------+
     *  | group     | name      | argv      | env       | workDir   | stdout    | stderr    |
     *  | string    | string    | strings   | strings   | string    | string    | string    |
     *  +-----------+-----------+-----------+-----------+-----------+-----------+-----------+
     * </pre>
     *
     * @param group the run group the process joins (any name; {@link ProcKill} ends a group)
     * @param name a label for listings (VMMC: {@code VMMC_<host>.<pid>})
     * @param argv the command and its arguments
     * @param env additions to the node's environment: {@code KEY=VALUE}, or {@code KEY} to remove one
     * @param workDir working directory, or empty for the node's
     * @param stdout file the output goes to (appended), or empty to discard it
     * @param stderr file the error output goes to; equal to {@code stdout} to merge them
     */
    record ProcSpawn(String group, String name, List<String> argv, List<String> env, String workDir, String stdout,
            String stderr) implements ProcessMessage {
        public MessageType type() { return MessageType.PROC_SPAWN; }
        public void encode(WireWriter w) {
            w.putString(group).putString(name);
            putStrings(w, argv);
            putStrings(w, env);
            w.putString(workDir).putString(stdout).putString(stderr);
        }
        static ProcSpawn decode(WireReader r) {
            return new ProcSpawn(r.getString(MAX_STRING), r.getString(MAX_STRING), getStrings(r, MAX_ARGUMENT),
                getStrings(r, MAX_ARGUMENT), r.getString(MAX_STRING), r.getString(MAX_STRING), r.getString(MAX_STRING));
        }
    }

    /**
     * Process service: ends ({@link Process#destroy}) the running processes of a group, or one
     * process. Answered with {@link LongValue}, the number of processes signalled.
     *
     * <pre>
     *  +-----------------+-------------------------------+
     *  | group (string)  | logicalPid (64-bit, 0 = all)  |
     *  +-----------------+-------------------------------+
     * </pre>
     *
     * @param group the run group
     * @param logicalPid one process of the group, or 0 for all of them
     */
    record ProcKill(String group, long logicalPid) implements ProcessMessage {
        public MessageType type() { return MessageType.PROC_KILL; }
        public void encode(WireWriter w) { w.putString(group).putLong(logicalPid); }
        static ProcKill decode(WireReader r) { return new ProcKill(r.getString(MAX_STRING), r.getLong()); }
    }

    /**
     * Process service: the state of a process the node started. Answered with
     * {@link LongsValue} {@code [osPid, running (1 or 0), exitCode]}, or an error if the node
     * knows no such process.
     *
     * <pre>
     *  +-------------------------------+
     *  | logicalPid (64-bit)           |
     *  +-------------------------------+
     * </pre>
     *
     * @param logicalPid the node's logical pid of the process
     */
    record ProcStatus(long logicalPid) implements ProcessMessage {
        public MessageType type() { return MessageType.PROC_STATUS; }
        public void encode(WireWriter w) { w.putLong(logicalPid); }
        static ProcStatus decode(WireReader r) { return new ProcStatus(r.getLong()); }
    }

    /**
     * Node registry ({@code docs/architecture.md} "Node registry"): stores a record of named
     * fields under {@code (space, key)}, kept by the node until deleted or the node stops.
     * Answered with {@link Ok}, or an error if {@code create} and the key exists.
     *
     * <pre>
     *  +----------------+----------------+-------------------------------+-----------------+
     *  | space (string) | key (string)   | fields (strings, NAME=VALUE)  | create (1 byte) |
     *  +----------------+----------------+-------------------------------+-----------------+
     * </pre>
     *
     * @param space the record's kind (e.g. {@code session})
     * @param key its name
     * @param fields {@code NAME=VALUE} pairs, in listing order
     * @param create refuse if the record exists
     */
    record RegPut(String space, String key, List<String> fields, boolean create) implements ProcessMessage {
        public MessageType type() { return MessageType.REG_PUT; }
        public void encode(WireWriter w) { w.putString(space).putString(key); putStrings(w, fields); w.putBoolean(create); }
        static RegPut decode(WireReader r) {
            return new RegPut(r.getString(MAX_STRING), r.getString(MAX_STRING), getStrings(r), r.getBoolean());
        }
    }

    /**
     * Node registry: reads a record. Answered with a {@link Table} of the field names and one
     * row of values, or no row if there is no such record.
     *
     * <pre>
     *  +----------------+----------------+
     *  | space (string) | key (string)   |
     *  +----------------+----------------+
     * </pre>
     *
     * @param space the record's kind
     * @param key its name
     */
    record RegGet(String space, String key) implements ProcessMessage {
        public MessageType type() { return MessageType.REG_GET; }
        public void encode(WireWriter w) { w.putString(space).putString(key); }
        static RegGet decode(WireReader r) { return new RegGet(r.getString(MAX_STRING), r.getString(MAX_STRING)); }
    }

    /**
     * Node registry: deletes a record and its counter. Answered with {@link LongValue} 1 if it
     * existed, else 0. Same layout as {@link RegGet}.
     *
     * @param space the record's kind
     * @param key its name
     */
    record RegDelete(String space, String key) implements ProcessMessage {
        public MessageType type() { return MessageType.REG_DELETE; }
        public void encode(WireWriter w) { w.putString(space).putString(key); }
        static RegDelete decode(WireReader r) { return new RegDelete(r.getString(MAX_STRING), r.getString(MAX_STRING)); }
    }

    /**
     * Node registry: adds one to the counter of {@code (space, key)} (0 before the first call)
     * and answers the new value as {@link LongValue}: ids unique at this node (VMMC run groups).
     * Same layout as {@link RegGet}.
     *
     * @param space the counter's kind
     * @param key its name
     */
    record RegNext(String space, String key) implements ProcessMessage {
        public MessageType type() { return MessageType.REG_NEXT; }
        public void encode(WireWriter w) { w.putString(space).putString(key); }
        static RegNext decode(WireReader r) { return new RegNext(r.getString(MAX_STRING), r.getString(MAX_STRING)); }
    }

    /**
     * Asks the node to pass a process-service or registry request ({@link ProcSpawn},
     * {@link ProcKill}, {@link ProcStatus}, {@link RegPut}, {@link RegGet}, {@link RegDelete},
     * {@link RegNext}, or {@link AdminList} of {@code sessions} or {@code runs}) to the peer
     * daemon {@code node} over the authenticated peer connection, and answers the peer's reply.
     * The peer serves it only if it allows peer processes ({@code cmid --peer-processes yes}).
     * A {@code node} naming the node itself is served at once.
     *
     * <pre>
     *  +---------------------------+-----------------+-----------------------------------+
     *  | node (bytes: 32-bit len,  | type (32-bit:   | payload (bytes: 32-bit length,    |
     *  | node address bytes)       | MessageType id) | the enclosed request's payload)   |
     *  +---------------------------+-----------------+-----------------------------------+
     * </pre>
     *
     * @param node the peer's node address bytes
     * @param requestType the enclosed request's type id
     * @param payload the enclosed request's payload
     */
    record Forward(byte[] node, int requestType, byte[] payload) implements ProcessMessage {
        /**
         * Encloses a request.
         *
         * @param node the peer's node address bytes
         * @param request the request
         * @return the forward request
         */
        public static Forward of(byte[] node, ControlMessage request) {
            WireWriter w = new WireWriter();
            request.encode(w);
            return new Forward(node, request.type().id(), w.toByteArray());
        }

        /** @return the enclosed request @throws WireFormatException if it does not decode */
        public ControlMessage request() {
            return MessageType.decode(new Frame(requestType, 0, 0, payload));
        }

        public MessageType type() { return MessageType.FORWARD; }
        public void encode(WireWriter w) { w.putBytes(node).putInt(requestType).putBytes(payload); }
        static Forward decode(WireReader r) { return new Forward(r.getBytes(MAX_STRING), r.getInt(), r.getBytes(1 << 20)); }
    }
}
