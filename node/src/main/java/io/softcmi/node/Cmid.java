package io.softcmi.node;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.concurrent.CountDownLatch;

/**
 * {@code cmid}: the node daemon. Runs until SIGTERM (or SIGINT), then removes its segment
 * files, socket and lock after telling every connected process.
 *
 * <pre>
 * cmid --dir DIR [--listen HOST:PORT] [--name NAME] [--cluster-key FILE] [--shm-dir SHM] [--memory BYTES] [--io-threads N] [--ticket-lifetime SECONDS]
 *      [--metrics HOST:PORT]
 * </pre>
 * {@code DIR} may also come from {@code SOFTCMI_NODE}. Exit status: 0 after a clean shutdown,
 * 2 for bad arguments, 1 if the node cannot start (another daemon owns {@code DIR}, say).
 */
public final class Cmid {
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
            config = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("cmid: " + e.getMessage());
            System.err.println("usage: cmid --dir DIR [--listen HOST:PORT] [--name NAME] [--cluster-key FILE] "
                + "[--shm-dir SHM] [--memory BYTES] [--io-threads N] [--ticket-lifetime SECONDS] [--metrics HOST:PORT]");
            Runtime.getRuntime().exit(2);
            return;
        }
        NodeDaemon node;
        try {
            node = NodeDaemon.start(config);
        } catch (Exception e) {
            System.err.println("cmid: cannot start: " + e.getMessage());
            Runtime.getRuntime().exit(1);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            node.close();
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

    static NodeConfig parse(String[] args) {
        NodeConfig c = new NodeConfig();
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
                case "--name" -> c.name(v);
                case "--cluster-key" -> c.clusterKeyFile(checkKeyFile(Path.of(v)));
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
                case "--help" -> throw new IllegalArgumentException("help");
                default -> throw new IllegalArgumentException("unknown option " + a);
            }
            i++;
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

    private static Path checkKeyFile(Path f) {
        try {
            if (Files.size(f) < 16) {
                throw new IllegalArgumentException("cluster key file " + f + " holds fewer than 16 bytes");
            }
            var perms = Files.getPosixFilePermissions(f);
            if (perms.contains(PosixFilePermission.OTHERS_READ) || perms.contains(PosixFilePermission.GROUP_READ)) {
                throw new IllegalArgumentException("cluster key file " + f + " must not be readable by others");
            }
            return f;
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("cannot read cluster key file " + f + ": " + e.getMessage());
        }
    }
}
