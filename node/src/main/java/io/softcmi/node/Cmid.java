package io.softcmi.node;

import io.softcmi.cmi.internal.SoftcmiLogging;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * {@code cmid}: the node daemon. Runs until SIGTERM (or SIGINT), then removes its segment
 * files, socket and lock after telling every connected process.
 *
 * <pre>
 * cmid [--config FILE] --dir DIR [--listen HOST:PORT] [--advertise HOST[:PORT]] [--name NAME] [--group GROUP] [--cluster-key FILE] [--shm-dir SHM] [--memory BYTES]
 *      [--io-threads N] [--ticket-lifetime SECONDS] [--metrics HOST:PORT] [--suspect-after MS] [--dead-after MS]
 *      [--revoke-drain MS]
 *      [--peer-processes yes|no]
 *      [--tls-keystore FILE --tls-password-file FILE]
 * </pre>
 * {@code --config FILE} reads options from a file first (see {@link #readConfig}); options on the
 * command line after it override the file's.
 * {@code DIR} may also come from {@code SOFTCMI_NODE}. Exit status: 0 after a clean shutdown,
 * 2 for bad arguments, 1 if the node cannot start (another daemon owns {@code DIR}, say).
 */
public final class Cmid {
    private static final System.Logger LOG = System.getLogger("io.softcmi.node");
    private Cmid() {
    }

    /**
     * Entry point.
     *
     * @param args command line
     */
    public static void main(String[] args) {
        NodeConfig config;
        try {
            SoftcmiLogging.configure(true);
            config = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("cmid: " + e.getMessage());
            System.err.println("usage: cmid [--config FILE] --dir DIR [--listen HOST:PORT] [--advertise HOST[:PORT]] [--name NAME] [--group GROUP] [--cluster-key FILE] "
                + "[--shm-dir SHM] [--memory BYTES] [--io-threads N] [--ticket-lifetime SECONDS] [--metrics HOST:PORT] [--suspect-after MS] [--dead-after MS] [--revoke-drain MS] [--peer-processes yes|no] "
                + "[--tls-keystore FILE --tls-password-file FILE]");
            Runtime.getRuntime().exit(2);
            return;
        }
        SoftcmiLogging.nodeName(config.name());
        LOG.log(System.Logger.Level.INFO, "cmid {0} starting: dir {1}, listen {2}:{3,number,#}, cluster key {4}",
            config.name(), config.directory(), config.listenHost(), config.listenPort(),
            config.clusterKeyFile() == null ? "none (single node)" : config.clusterKeyFile());
        NodeDaemon node;
        try {
            node = NodeDaemon.start(config);
        } catch (Exception e) {
            LOG.log(System.Logger.Level.ERROR, "cmid {0} cannot start: {1}", config.name(), e.getMessage());
            System.err.println("cmid: cannot start: " + e.getMessage());
            Runtime.getRuntime().exit(1);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            SoftcmiLogging.direct(System.Logger.Level.INFO, "io.softcmi.node",
                "cmid " + config.name() + " stopping (signal): telling connected processes, removing segment files");
            node.close();
            SoftcmiLogging.direct(System.Logger.Level.INFO, "io.softcmi.node", "cmid " + config.name() + " stopped");
            stopped.countDown();
        }, "cmid-shutdown"));
        System.out.println("cmid: node " + config.name() + " serving " + config.directory() + " (address "
            + node.engine().address() + ")" + (node.metricsPort() < 0 ? ""
                : " metrics at http://" + config.metricsHost() + ":" + node.metricsPort() + "/metrics"));
        System.out.flush();
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Reads a {@code cmid} configuration file into command-line options. Every option of the
     * command line may appear, one per line, in any of these forms (blank lines and lines
     * starting with {@code #} or {@code !} are ignored; {@code --config} itself may not appear):
     * <pre>
     * listen = 0.0.0.0:7001        (properties style, also {@code listen: ...})
     * listen 0.0.0.0:7001
     * --listen 0.0.0.0:7001
     * </pre>
     *
     * @param file the configuration file
     * @return the options, as {@code --name value} pairs in file order
     * @throws IllegalArgumentException if the file cannot be read or a line is malformed
     */
    static List<String> readConfig(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("cannot read configuration file " + file + ": " + e.getMessage());
        }
        List<String> out = new ArrayList<>();
        int n = 0;
        for (String raw : lines) {
            n++;
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#") || line.startsWith("!")) {
                continue;
            }
            int sep = -1;
            for (int i = 0; i < line.length(); i++) {
                char ch = line.charAt(i);
                if (ch == '=' || ch == ':' || Character.isWhitespace(ch)) {
                    sep = i;
                    break;
                }
            }
            if (sep <= 0) {
                throw new IllegalArgumentException(file + ":" + n + ": want 'option value', got '" + line + "'");
            }
            String key = line.substring(0, sep).strip();
            String value = line.substring(sep + 1).strip();
            if (!value.isEmpty() && (value.charAt(0) == '=' || value.charAt(0) == ':')) {
                value = value.substring(1).strip();
            }
            if (key.startsWith("--")) {
                key = key.substring(2);
            }
            if (value.isEmpty()) {
                throw new IllegalArgumentException(file + ":" + n + ": no value for " + key);
            }
            if (key.equals("config")) {
                throw new IllegalArgumentException(file + ":" + n + ": a configuration file cannot name another");
            }
            out.add("--" + key);
            out.add(value);
        }
        return out;
    }

    /** Expands {@code --config FILE} into the file's options, in place. */
    static String[] expandConfig(String[] args) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--config") || args[i].startsWith("--config=")) {
                String v;
                if (args[i].startsWith("--config=")) {
                    v = args[i].substring("--config=".length());
                } else if (i + 1 < args.length) {
                    v = args[++i];
                } else {
                    throw new IllegalArgumentException("missing value after --config");
                }
                out.addAll(readConfig(Path.of(v)));
            } else {
                out.add(args[i]);
            }
        }
        return out.toArray(String[]::new);
    }

    static NodeConfig parse(String[] commandLine) {
        String[] args = expandConfig(commandLine);
        NodeConfig c = new NodeConfig();
        Path tlsKeyStore = null;
        Path tlsPasswordFile = null;
        String env = System.getenv("SOFTCMI_NODE");
        if (env != null && !env.isBlank()) {
            c.directory(Path.of(env));
        }
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String v = i + 1 < args.length ? args[i + 1] : null;
            if (v == null && !a.equals("--help")) {
                throw new IllegalArgumentException("missing value after " + a);
            }
            switch (a) {
                case "--dir" -> c.directory(Path.of(v));
                case "--listen" -> hostPort(a, v, c::listen);
                case "--metrics" -> hostPort(a, v, c::metrics);
                case "--advertise" -> {
                    // HOST, HOST:PORT, [V6] or [V6]:PORT; a bare IPv6 address (several colons) is a host.
                    String host = v;
                    int port = 0;
                    int colon = v.lastIndexOf(':');
                    boolean bracketed = v.startsWith("[");
                    if (colon > 0 && (bracketed ? v.lastIndexOf(']') < colon : v.indexOf(':') == colon)) {
                        host = v.substring(0, colon);
                        try {
                            port = Integer.parseInt(v.substring(colon + 1));
                        } catch (NumberFormatException e) {
                            throw new IllegalArgumentException("bad port in --advertise " + v);
                        }
                    }
                    if (host.isEmpty()) {
                        throw new IllegalArgumentException("--advertise wants HOST[:PORT], got " + v);
                    }
                    c.advertise(host, port);
                }
                case "--name" -> c.name(v);
                case "--group" -> c.group(v);
                case "--cluster-key" -> c.clusterKeyFile(checkKeyFile(Path.of(v)));
                case "--tls-keystore" -> tlsKeyStore = Path.of(v);
                case "--tls-password-file" -> tlsPasswordFile = Path.of(v);
                case "--shm-dir" -> c.shmDirectory(Path.of(v));
                case "--memory" -> {
                    try {
                        c.memoryBytes(Long.parseLong(v));
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("bad --memory " + v);
                    }
                }
                case "--io-threads" -> {
                    try {
                        c.ioThreads(Integer.parseInt(v));
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("bad --io-threads " + v);
                    }
                }
                case "--ticket-lifetime" -> {
                    try {
                        c.ticketLifetimeMs(Math.multiplyExact(Long.parseLong(v), 1000L));
                    } catch (NumberFormatException | ArithmeticException e) {
                        throw new IllegalArgumentException("bad --ticket-lifetime " + v);
                    }
                }
                case "--revoke-drain" -> {
                    try {
                        c.revokeDrainMs(Long.parseLong(v));
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("bad --revoke-drain " + v);
                    }
                }
                case "--suspect-after", "--dead-after" -> {
                    long ms;
                    try {
                        ms = Long.parseLong(v);
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("bad " + a + " " + v);
                    }
                    if (a.equals("--suspect-after")) {
                        c.suspectAfterMs(ms);
                    } else {
                        c.deadAfterMs(ms);
                    }
                }
                case "--peer-processes" -> {
                    if (!v.equals("yes") && !v.equals("no")) {
                        throw new IllegalArgumentException("--peer-processes wants yes or no, got " + v);
                    }
                    c.peerProcesses(v.equals("yes"));
                }
                case "--help" -> throw new IllegalArgumentException("help");
                default -> throw new IllegalArgumentException("unknown option " + a);
            }
            i++;
        }
        if (tlsKeyStore != null || tlsPasswordFile != null) {
            c.tls(loadTls(tlsKeyStore, tlsPasswordFile));
        }
        return c.conclude();
    }

    /** Parses {@code HOST:PORT} (the host may itself hold colons: IPv6) and hands it on. */
    private static void hostPort(String option, String v, java.util.function.ObjIntConsumer<String> to) {
        int colon = v.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException(option + " wants HOST:PORT, got " + v);
        }
        try {
            to.accept(v.substring(0, colon), Integer.parseInt(v.substring(colon + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad port in " + option + " " + v);
        }
    }

    /** Loads the TLS key store named by {@code --tls-keystore}, its password from a private file. */
    private static io.softcmi.wire.ClusterTls loadTls(Path keyStore, Path passwordFile) {
        if (keyStore == null || passwordFile == null) {
            throw new IllegalArgumentException("TLS needs both --tls-keystore and --tls-password-file");
        }
        try {
            requirePrivate(passwordFile, "TLS password file");
            char[] password = Files.readString(passwordFile).strip().toCharArray();
            return io.softcmi.wire.ClusterTls.fromKeyStore(keyStore, password);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("cannot use TLS: " + e.getMessage());
        }
    }

    /**
     * Refuses a secret file that grants anything to its group or others (or execution to its
     * owner): mode 0600 or 0400, as the node's own check of the cluster key ({@code ClusterKey}).
     */
    private static void requirePrivate(Path f, String what) throws java.io.IOException {
        var perms = Files.getPosixFilePermissions(f);
        perms.removeAll(java.util.EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE));
        if (!perms.isEmpty()) {
            throw new IllegalArgumentException(what + " " + f + " must grant nothing to group or others (mode 0600 or 0400), not "
                + java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
        }
    }

    private static Path checkKeyFile(Path f) {
        try {
            if (Files.size(f) < 16) {
                throw new IllegalArgumentException("cluster key file " + f + " holds fewer than 16 bytes");
            }
            requirePrivate(f, "cluster key file");
            return f;
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("cannot read cluster key file " + f + ": " + e.getMessage());
        }
    }
}
