package io.softcmi.tools;

import io.softcmi.cmi.CmiException;
import io.softcmi.wire.ControlMessage;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * {@code cmiadm}: the administration tool of the spec ({@code cmiadm(8)}). It lists the tables of
 * a node (ids only, never token secrets) and deletes memory reservations. {@code sessions} lists
 * the sessions clients keep in the node registry (VMMC's {@code cfgvmmc add}), {@code runs} the
 * processes the node started for clients (group, logical pid, OS pid, name, state, exit code).
 *
 * <pre>
 * cmiadm [--dir DIR] [--json] nodes|contexts|segments|exports|imports|tokens|reservations|peers|caches|dataplane|sessions|runs
 * cmiadm [--dir DIR] reservation-delete KEY
 * cmiadm top --metrics HOST:PORT [--by node|peer|segment] [--rows N] [--interval SECONDS] [--count N]   (see {@link CmiTop})
 * </pre>
 * Without {@code --dir} it uses {@code SOFTCMI_NODE}. Exit status: 0 on success, 1 if the node
 * cannot be reached or refuses the request (the CMI error name and message are printed), 2 for a
 * usage error.
 */
public final class CmiAdm {
    /** The tables a node lists, in the order the usage message gives them. */
    public static final List<String> TABLES =
        List.of("nodes", "contexts", "segments", "exports", "imports", "tokens", "reservations", "peers", "caches",
            "dataplane", "sessions", "runs");
    /** The subcommand that deletes a reservation. */
    public static final String RESERVATION_DELETE = "reservation-delete";
    /** Exit status for a usage error. */
    public static final int EXIT_USAGE = 2;
    /** Exit status when the node cannot be reached or refuses the request. */
    public static final int EXIT_FAILED = 1;

    private static final String USAGE = """
        usage: cmiadm [--dir DIR] [--json] nodes|contexts|segments|exports|imports|tokens|reservations|peers|caches|dataplane|sessions|runs
               cmiadm [--dir DIR] reservation-delete KEY
               cmiadm top --metrics HOST:PORT [--by node|peer|segment] [--rows N] [--interval SECONDS] [--count N]
        DIR is the node directory of a running cmid (default: $SOFTCMI_NODE).""";

    private CmiAdm() {
    }

    /**
     * A parsed command line.
     *
     * @param dir the node directory
     * @param json whether to print JSON instead of a table
     * @param action a table name from {@link #TABLES}, or {@link #RESERVATION_DELETE}
     * @param key the reservation key for {@link #RESERVATION_DELETE}, otherwise 0
     */
    public record Command(Path dir, boolean json, String action, long key) {
        /**
         * Tells a deletion from a listing.
         *
         * @return whether this command deletes a reservation rather than listing a table
         */
        public boolean deletesReservation() {
            return action.equals(RESERVATION_DELETE);
        }
    }

    /**
     * Entry point: runs {@link #run(String[], PrintStream, PrintStream, Map)} and exits with its
     * status.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        int status = run(args, System.out, System.err, System.getenv());
        System.out.flush();
        System.exit(status);
    }

    /**
     * Runs one {@code cmiadm} command.
     *
     * @param args the command line
     * @param out where tables and confirmations go
     * @param err where errors and usage go
     * @param env the environment ({@code SOFTCMI_NODE})
     * @return the exit status: 0, {@link #EXIT_FAILED} or {@link #EXIT_USAGE}
     */
    public static int run(String[] args, PrintStream out, PrintStream err, Map<String, String> env) {
        if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
            out.println(USAGE);
            return 0;
        }
        if (args.length >= 1 && args[0].equals("top")) {
            return CmiTop.run(java.util.Arrays.copyOfRange(args, 1, args.length), out, err);
        }
        Command command;
        try {
            command = parse(args, env);
        } catch (IllegalArgumentException e) {
            err.println("cmiadm: " + e.getMessage());
            err.println(USAGE);
            return EXIT_USAGE;
        }
        try (AdminSession session = AdminSession.open(command.dir(), "cmiadm")) {
            if (command.deletesReservation()) {
                session.deleteReservation(command.key());
                out.println("reservation " + command.key() + " deleted");
            } else {
                ControlMessage.Table table = session.list(command.action());
                out.print(command.json() ? TableFormat.json(table.columns(), table.rows())
                    : TableFormat.text(table.columns(), table.rows()));
            }
            return 0;
        } catch (CmiException e) {
            String message = e.getMessage();
            String name = e.error().specName();
            err.println("cmiadm: " + (message.startsWith(name) ? message : name + ": " + message));
            return EXIT_FAILED;
        }
    }

    /**
     * Parses a command line.
     *
     * @param args the arguments: options ({@code --dir DIR}, {@code --dir=DIR}, {@code --json}) and
     *             one subcommand with its operand
     * @param env the environment, for {@code SOFTCMI_NODE} when {@code --dir} is absent
     * @return the command
     * @throws IllegalArgumentException with a message for the user if the line is not valid
     */
    public static Command parse(String[] args, Map<String, String> env) {
        String dir = null;
        boolean json = false;
        String action = null;
        Long key = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--dir")) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("missing value after --dir");
                }
                dir = args[++i];
            } else if (a.startsWith("--dir=")) {
                dir = a.substring("--dir=".length());
            } else if (a.equals("--json")) {
                json = true;
            } else if (a.startsWith("-") && !(RESERVATION_DELETE.equals(action) && key == null && a.matches("-[0-9]+"))) {
                throw new IllegalArgumentException("unknown option " + a);
            } else if (action == null) {
                if (!TABLES.contains(a) && !a.equals(RESERVATION_DELETE)) {
                    throw new IllegalArgumentException("unknown command '" + a + "'");
                }
                action = a;
            } else if (action.equals(RESERVATION_DELETE) && key == null) {
                key = parseKey(a);
            } else {
                throw new IllegalArgumentException("unexpected argument '" + a + "'");
            }
        }
        if (action == null) {
            throw new IllegalArgumentException("no command given");
        }
        if (action.equals(RESERVATION_DELETE) && key == null) {
            throw new IllegalArgumentException(RESERVATION_DELETE + " needs a reservation KEY");
        }
        if (json && action.equals(RESERVATION_DELETE)) {
            throw new IllegalArgumentException("--json applies to listings only");
        }
        if (dir == null) {
            dir = env.get("SOFTCMI_NODE");
        }
        if (dir == null || dir.isBlank()) {
            throw new IllegalArgumentException("no node: give --dir DIR or set SOFTCMI_NODE");
        }
        return new Command(Path.of(dir), json, action, key == null ? 0 : key);
    }

    private static long parseKey(String s) {
        try {
            long key = Long.parseLong(s);
            if (key <= 0) {
                throw new IllegalArgumentException("reservation KEY must be positive: " + s);
            }
            return key;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("reservation KEY must be a decimal number: " + s);
        }
    }
}
