package io.softcmi.smi.run;

import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiVersion;
import io.softcmi.smi.internal.Bootstrap;
import io.softcmi.smi.internal.JobEnv;
import io.softcmi.smi.internal.SysInfo;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Collectors;

/**
 * {@code smirun}: starts an SMI application (SMI manual §2.1.2). It works out where the processes
 * run ({@link Plan}), makes sure every node has a {@code cmid} (starting one per node where none
 * runs, all with the job's cluster key, and stopping them at the end), makes the job's bootstrap
 * segment on rank 0's node, starts the ranks with their job environment ({@link JobEnv}) and
 * waits. When a rank fails (non-zero exit, {@code SMI_Abort}) or smirun is interrupted, it ends
 * every other rank; its exit code is the worst exit code of the ranks that ended by themselves.
 * <p>Environment: {@code SOFTCMI_NODE} (use that running {@code cmid} for this machine),
 * {@code SMI_CLUSTER_KEY} (the cluster key file of daemons already running; otherwise one is made
 * for the job), {@code SMI_JAVA_OPTS} (JVM options of the ranks), {@code SMI_SSH} (default
 * {@code ssh}), {@code SMI_XTERM}/{@code XTERM}, {@code SMI_PAGER}/{@code PAGER},
 * {@code SMI_HOME}, {@code SMI_WATCHDOG}; inside a Slurm allocation ({@code SLURM_JOB_ID} set)
 * other hosts are reached with {@code srun}.
 */
public final class SmiRun {
    private static final int KILL_GRACE_SECONDS = 5;

    private final RunOptions opts;
    private final Plan plan;
    private final Map<String, String> env;
    private final PrintStream out;
    private final PrintStream err;
    private final List<Daemon> daemons = new ArrayList<>();
    private final List<Process> ranks = new ArrayList<>();
    private final Set<Integer> killed = new HashSet<>();
    private Path jobDir;
    private CmiContext ctx;
    private Bootstrap bootstrap;
    private boolean cleaned;

    private SmiRun(RunOptions opts, Plan plan, Map<String, String> env, PrintStream out, PrintStream err) {
        this.opts = opts;
        this.plan = plan;
        this.env = env;
        this.out = out;
        this.err = err;
    }

    /**
     * The {@code smirun} command.
     *
     * @param args its command line
     */
    public static void main(String[] args) {
        int code = run(args, System.out, System.err, System.getenv());
        System.out.flush();
        System.exit(code);
    }

    /**
     * Runs a job.
     *
     * @param args the command line
     * @param out where {@code -v} and {@code -t} print
     * @param err where errors go
     * @param env the environment
     * @return the exit code: the ranks' worst, 2 for a usage error, 1 if the job could not start
     */
    public static int run(String[] args, PrintStream out, PrintStream err, Map<String, String> env) {
        RunOptions o;
        Plan plan;
        try {
            o = RunOptions.parse(args);
            plan = Plan.of(o, Path.of("").toAbsolutePath(), Path.of(System.getProperty("user.home")), env.get("SMI_HOME"),
                localNames());
        } catch (RunOptions.UsageException e) {
            err.println("smirun: " + e.getMessage());
            err.println(RunOptions.USAGE);
            return 2;
        }
        SmiRun r = new SmiRun(o, plan, env, out, err);
        Thread hook = new Thread(r::cleanup, "smirun-interrupt");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            return r.execute();
        } catch (IOException | RuntimeException e) {
            err.println("smirun: " + e.getMessage());
            return 1;
        } finally {
            r.cleanup();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException ignored) {
                // Already shutting down: the hook runs cleanup, which is idempotent.
            }
        }
    }

    static Set<String> localNames() {
        Set<String> s = new HashSet<>(Set.of("localhost", "127.0.0.1", "::1", "localhost.localdomain"));
        s.add(SysInfo.hostName());
        try {
            s.add(InetAddress.getLocalHost().getCanonicalHostName());
        } catch (IOException ignored) {
            // No resolvable name: the literal aliases remain.
        }
        return s;
    }

    private void verbose(String s) {
        if (opts.verbose() || opts.test()) {
            out.println("smirun: " + s);
        }
    }

    private int execute() throws IOException {
        int np = plan.size();
        verbose(np + " processes on " + plan.nodes().size() + " nodes (hosts from " + plan.source() + ")");
        for (int n = 0; n < plan.nodes().size(); n++) {
            Plan.Node node = plan.nodes().get(n);
            verbose("node " + n + " " + node.name() + " (" + node.kind().name().toLowerCase(java.util.Locale.ROOT)
                + "): ranks " + node.firstRank() + ".." + (node.firstRank() + node.procs() - 1));
        }
        if (opts.pager() && !opts.xterm()) {
            err.println("smirun: -pager works with -xterm only; ignored");
        }
        jobDir = Files.createTempDirectory("smirun-", PosixFilePermissions.asFileAttribute(
            PosixFilePermissions.fromString("rwx------")));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String classPath = System.getProperty("java.class.path");
        String main = opts.program();
        if (main.endsWith(".jar")) {
            Path jar = Path.of(main).toAbsolutePath();
            try (JarFile jf = new JarFile(jar.toFile())) {
                main = jf.getManifest() == null ? null : jf.getManifest().getMainAttributes().getValue("Main-Class");
            }
            if (main == null) {
                throw new IOException(jar + " has no Main-Class in its manifest");
            }
            classPath = classPath + File.pathSeparator + jar;
        }
        Path key = clusterKey();
        String ssh = env.getOrDefault("SMI_SSH", "ssh");
        boolean slurm = env.containsKey("SLURM_JOB_ID");
        Path cwd = Path.of("").toAbsolutePath();
        // The daemons.
        Map<Integer, Path> nodeDir = new LinkedHashMap<>();
        for (int n = 0; n < plan.nodes().size(); n++) {
            Plan.Node node = plan.nodes().get(n);
            String existing = env.get("SOFTCMI_NODE");
            if (node.kind() == Plan.Kind.LOCAL && existing != null && Files.exists(Path.of(existing, "cmid.sock"))) {
                verbose("node " + n + ": using the running cmid of " + existing);
                nodeDir.put(n, Path.of(existing));
                continue;
            }
            String name = "smi-" + ProcessHandle.current().pid() + "-" + n;
            Path dir = jobDir.resolve("node-" + n);
            Path shm = Path.of(Files.isDirectory(Path.of("/dev/shm")) ? "/dev/shm" : jobDir.toString(), "softcmi-" + name);
            String host = node.kind() == Plan.Kind.REMOTE ? node.name() : "127.0.0.1";
            List<String> cmd = Commands.cmid(node.kind() == Plan.Kind.REMOTE ? "java" : java, classPath, dir, name,
                host + ":0", key, shm);
            if (node.kind() == Plan.Kind.REMOTE) {
                cmd = Commands.remote(node.name(), Map.of(), cwd, cmd, ssh, slurm);
            }
            nodeDir.put(n, dir);
            if (opts.test()) {
                out.println(Commands.join(cmd));
                continue;
            }
            verbose("node " + n + ": starting " + Commands.join(cmd));
            Daemon d = Daemon.start(cmd, name, dir, shm, jobDir.resolve("cmid-" + n + ".log"), 60);
            if (node.kind() == Plan.Kind.REMOTE) {
                String remoteHost = node.name();
                d.stopRemotelyWith(Daemon.remoteStopCommand(c -> Commands.remote(remoteHost, Map.of(), cwd, c, ssh, slurm),
                    dir));
            }
            daemons.add(d);
        }
        // The bootstrap segment, on rank 0's node (or this machine's when rank 0 is remote).
        int bootNode = plan.nodes().get(0).kind() == Plan.Kind.REMOTE ? -1 : 0;
        String bootValue = "<bootstrap-descriptor>";
        if (!opts.test()) {
            if (bootNode < 0) {
                throw new IOException("rank 0 is on another host: smirun needs rank 0 on this machine"
                    + " (its bootstrap segment lives on rank 0's node)");
            }
            ctx = openContext(nodeDir.get(bootNode));
            bootstrap = Bootstrap.create(ctx, np);
            bootValue = bootstrap.envValue();
        }
        // The ranks.
        OutputFiles stdout = opts.stdout() == null ? null : new OutputFiles(Path.of(opts.stdout()).toAbsolutePath(), np);
        OutputFiles stderr = opts.stderr() == null ? null : new OutputFiles(Path.of(opts.stderr()).toAbsolutePath(), np);
        if (!opts.test()) {
            if (stdout != null) {
                stdout.prepare();
            }
            if (stderr != null) {
                stderr.prepare();
            }
        }
        String procNodes = Arrays.stream(plan.procNode()).mapToObj(Integer::toString)
            .collect(Collectors.joining(","));
        String nodeNames = plan.nodes().stream().map(Plan.Node::name).collect(Collectors.joining(","));
        List<String> jvmOptions = Commands.jvmOptions(env.get("SMI_JAVA_OPTS"));
        for (int r = 0; r < np; r++) {
            int n = plan.procNode()[r];
            Plan.Node node = plan.nodes().get(n);
            Map<String, String> rankEnv = new LinkedHashMap<>();
            rankEnv.put("SOFTCMI_NODE", nodeDir.get(n).toString());
            rankEnv.put(JobEnv.RANK, Integer.toString(r));
            rankEnv.put(JobEnv.SIZE, Integer.toString(np));
            rankEnv.put(JobEnv.PROC_NODES, procNodes);
            rankEnv.put(JobEnv.NODE_NAMES, nodeNames);
            rankEnv.put(JobEnv.BOOTSTRAP, bootValue);
            rankEnv.put(JobEnv.NOLOCAL, opts.noLocal() ? "1" : "0");
            rankEnv.put(JobEnv.DEBUG, opts.debug() ? "1" : "0");
            if (env.containsKey(JobEnv.WATCHDOG)) {
                rankEnv.put(JobEnv.WATCHDOG, env.get(JobEnv.WATCHDOG));
            }
            List<String> cmd = Commands.rank(node.kind() == Plan.Kind.REMOTE ? "java" : java, classPath, jvmOptions, main,
                opts.programArgs());
            if (node.kind() == Plan.Kind.REMOTE) {
                cmd = Commands.remote(node.name(), rankEnv, cwd, cmd, ssh, slurm);
            }
            if (opts.xterm()) {
                String xterm = env.getOrDefault("SMI_XTERM", env.getOrDefault("XTERM", "xterm"));
                String pager = opts.pager() ? env.getOrDefault("SMI_PAGER", env.getOrDefault("PAGER", "less")) : null;
                cmd = Commands.xterm(cmd, "smirun rank " + r + " on " + node.name(), xterm, pager);
            }
            if (opts.test()) {
                String prefix = node.kind() == Plan.Kind.REMOTE ? "" : rankEnv.entrySet().stream()
                    .map(e -> e.getKey() + "=" + Commands.quote(e.getValue())).collect(Collectors.joining(" ")) + " ";
                out.println(prefix + Commands.join(cmd));
                continue;
            }
            ProcessBuilder pb = new ProcessBuilder(cmd);
            if (node.kind() != Plan.Kind.REMOTE) {
                pb.environment().putAll(rankEnv);
            }
            pb.redirectOutput(stdout == null ? ProcessBuilder.Redirect.INHERIT : ProcessBuilder.Redirect.to(stdout.file(r).toFile()));
            pb.redirectError(stderr == null ? ProcessBuilder.Redirect.INHERIT : ProcessBuilder.Redirect.to(stderr.file(r).toFile()));
            if (opts.stdin() != null) {
                pb.redirectInput(Path.of(opts.stdin()).toFile());
            } else if (r == 0) {
                pb.redirectInput(ProcessBuilder.Redirect.INHERIT);
            } else {
                pb.redirectInput(Path.of("/dev/null").toFile());
            }
            verbose("rank " + r + " on " + node.name() + ": " + Commands.join(cmd));
            synchronized (ranks) {
                ranks.add(pb.start());
            }
        }
        if (opts.test()) {
            return 0;
        }
        int code = await();
        if (stdout != null) {
            verbose("stdout files: " + stdout.finish());
        }
        if (stderr != null) {
            verbose("stderr files: " + stderr.finish());
        }
        return code;
    }

    /** Waits for the ranks; ends all when one fails. @return the worst exit code of the ranks that ended by themselves */
    private int await() {
        int worst = 0;
        boolean ending = false;
        long endingSince = 0;
        boolean[] done = new boolean[ranks.size()];
        int left = ranks.size();
        while (left > 0) {
            for (int r = 0; r < ranks.size(); r++) {
                Process p = ranks.get(r);
                if (done[r] || p.isAlive()) {
                    continue;
                }
                done[r] = true;
                left--;
                int c = p.exitValue();
                synchronized (ranks) {
                    if (!killed.contains(r)) {
                        worst = Math.max(worst, c);
                        if (c != 0) {
                            err.println("smirun: rank " + r + " exited with code " + c + (ending ? "" : "; ending the job"));
                        }
                    }
                }
                if (c != 0 && !ending) {
                    ending = true;
                    endingSince = System.nanoTime();
                    killRanks(false);
                }
            }
            if (!ending && bootstrap != null && bootstrap.abortCode() >= 0) {
                // A rank called SMI_Abort: the others end by their watchdogs; make sure within the grace time.
                ending = true;
                endingSince = System.nanoTime();
                worst = Math.max(worst, bootstrap.abortCode());
            }
            if (ending && System.nanoTime() - endingSince > TimeUnit.SECONDS.toNanos(KILL_GRACE_SECONDS)) {
                killRanks(true);
            }
            if (left > 0) {
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    killRanks(true);
                    return 130;
                }
            }
        }
        return worst;
    }

    private void killRanks(boolean forcibly) {
        synchronized (ranks) {
            for (int r = 0; r < ranks.size(); r++) {
                Process p = ranks.get(r);
                if (p.isAlive()) {
                    killed.add(r);
                    if (forcibly) {
                        p.destroyForcibly();
                    } else {
                        p.destroy();
                    }
                }
            }
        }
    }

    private static CmiContext openContext(Path nodeDir) {
        String before = System.getProperty("softcmi.node");
        System.setProperty("softcmi.node", nodeDir.toString());
        System.setProperty("softcmi.embedded", "false");
        try {
            CmiContext ctx = Cmi.init(new CmiVersion(1, 1));
            ctx.enable(true); // cmi_enb: smirun reads and writes the job's bootstrap segment
            return ctx;
        } finally {
            if (before == null) {
                System.clearProperty("softcmi.node");
            } else {
                System.setProperty("softcmi.node", before);
            }
        }
    }

    private Path clusterKey() throws IOException {
        String given = env.get("SMI_CLUSTER_KEY");
        if (given != null) {
            return Path.of(given).toAbsolutePath();
        }
        Path key = jobDir.resolve("cluster.key");
        Files.createFile(key, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        byte[] k = new byte[32];
        new SecureRandom().nextBytes(k);
        Files.write(key, k);
        return key;
    }

    /** Ends what is left: ranks, the bootstrap segment, the daemons, the job directory. Idempotent. */
    private void cleanup() {
        synchronized (this) {
            if (cleaned) {
                return;
            }
            cleaned = true;
        }
        killRanks(false);
        synchronized (ranks) {
            for (Process p : ranks) {
                try {
                    if (!p.waitFor(KILL_GRACE_SECONDS, TimeUnit.SECONDS)) {
                        p.destroyForcibly();
                        p.waitFor(KILL_GRACE_SECONDS, TimeUnit.SECONDS);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    p.destroyForcibly();
                }
            }
        }
        if (bootstrap != null) {
            try {
                bootstrap.close();
                ctx.fini();
            } catch (RuntimeException e) {
                // From the interrupt hook the context is not this thread's: the daemon reclaims it.
            }
        }
        for (Daemon d : daemons) {
            d.stop();
        }
        if (jobDir != null) {
            Daemon.deleteTree(jobDir);
        }
    }
}
