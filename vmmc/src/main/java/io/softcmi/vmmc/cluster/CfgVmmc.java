package io.softcmi.vmmc.cluster;

import io.softcmi.vmmc.internal.Directory;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * {@code cfgvmmc} with the manual's syntax:
 * <pre>
 * cfgvmmc HOST add SESSION USER PASSWORD DRIVE NETSHARE OUTDIR
 * cfgvmmc HOST del SESSION
 * cfgvmmc HOST run SESSION WORKDIR PROGRAM [ARGS]
 * cfgvmmc HOST kill SESSION [PID]
 * </pre>
 * Sessions and run groups live in the share directory ({@code VMMCSHARE}); {@code add} records
 * the session's hosts from {@code VMMCHOSTS}. {@code run} starts PROGRAM (an executable file,
 * relative to WORKDIR under the session's DRIVE, or else a Java main class on this class path) as
 * the lead of a new run group on HOST, detached: it keeps running when {@code cfgvmmc} exits. It
 * prints the logical pid and run group. Not a daemon service: every host must be on this machine.
 */
public final class CfgVmmc {
    private CfgVmmc() {
    }

    /**
     * Entry point.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        int rc = run(args, System.out, System.err);
        if (rc != 0) {
            Runtime.getRuntime().exit(rc);
        }
    }

    /**
     * Runs one command.
     *
     * @param args the command line
     * @param out standard output
     * @param err standard error
     * @return the exit status
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length < 3) {
            err.println("usage: cfgvmmc HOST add SESSION USER PASSWORD DRIVE NETSHARE OUTDIR | del SESSION"
                + " | run SESSION WORKDIR PROGRAM [ARGS] | kill SESSION [PID]");
            return 2;
        }
        String share = System.getenv("VMMCSHARE") != null ? System.getenv("VMMCSHARE") : System.getProperty("java.io.tmpdir") + "/vmmc";
        SessionStore store = new SessionStore(Path.of(System.getProperty("vmmc.share", share)));
        String host = args[0];
        String session = args[2];
        try {
            switch (args[1]) {
                case "add" -> {
                    if (args.length != 8) {
                        err.println("usage: cfgvmmc HOST add SESSION USER PASSWORD DRIVE NETSHARE OUTDIR");
                        return 2;
                    }
                    String hosts = System.getenv("VMMCHOSTS") != null ? System.getenv("VMMCHOSTS") : host;
                    store.add(new SessionStore.Session(session, args[3], args[5], args[6], Path.of(args[7]), hosts));
                    out.println("session " + session + " added");
                }
                case "del" -> {
                    for (SessionStore.RunProcess p : store.processes(session)) {
                        ProcessHandle.of(p.realPid()).ifPresent(ProcessHandle::destroy);
                    }
                    store.delete(session);
                    out.println("session " + session + " deleted");
                }
                case "run" -> {
                    if (args.length < 5) {
                        err.println("usage: cfgvmmc HOST run SESSION WORKDIR PROGRAM [ARGS]");
                        return 2;
                    }
                    SessionStore.Session s = store.get(session).orElseThrow(() -> new IllegalStateException("no session " + session));
                    start(store, s, host, args[3], args[4], Arrays.copyOfRange(args, 5, args.length), out);
                }
                case "kill" -> {
                    int killed = 0;
                    for (SessionStore.RunProcess p : store.processes(session)) {
                        if (args.length < 4 || (p.host().equals(host) && p.pid() == Integer.parseInt(args[3]))) {
                            if (ProcessHandle.of(p.realPid()).map(ProcessHandle::destroy).orElse(false)) {
                                killed++;
                            }
                        }
                    }
                    out.println("killed " + killed + " process(es) of session " + session);
                }
                default -> {
                    err.println("cfgvmmc: unknown command " + args[1]);
                    return 2;
                }
            }
            return 0;
        } catch (RuntimeException | IOException e) {
            err.println("cfgvmmc: " + e.getMessage());
            return 1;
        }
    }

    private static void start(SessionStore store, SessionStore.Session s, String host, String workDir, String program,
            String[] args, PrintStream out) throws IOException {
        String nodeDir = null;
        boolean known = false;
        for (String e : s.hosts().split(",")) {
            String name = e.contains("=") ? e.substring(0, e.indexOf('=')) : e.trim();
            if (name.equals(host)) {
                known = true;
                nodeDir = e.contains("=") ? e.substring(e.indexOf('=') + 1) : null;
            }
        }
        if (!known) {
            throw new IllegalStateException("host " + host + " is not in session " + s.name() + " (" + s.hosts() + ")");
        }
        Path dir = Path.of(s.drive()).resolve(workDir.startsWith("/") ? workDir.substring(1) : workDir);
        int run = store.newRun(s);
        int pid = new Directory(store.share(), s.name()).registerNext(host);
        List<String> cmd = new ArrayList<>();
        Path exe = dir.resolve(program);
        if (Files.isRegularFile(exe) && Files.isExecutable(exe)) {
            cmd.add(exe.toString());
        } else {
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            cmd.add("--enable-native-access=ALL-UNNAMED");
            cmd.add("-cp");
            cmd.add(System.getProperty("java.class.path"));
            cmd.add(program);
        }
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
        Map<String, String> env = pb.environment();
        env.put("VMMCSESSION", s.name());
        env.put("VMMCHOSTS", s.hosts());
        env.put("VMMCHOST", host);
        env.put("VMMCPID", Integer.toString(pid));
        env.put("VMMCSHARE", store.share().toString());
        env.put("VMMCOUTDIR", s.outDir().toString());
        env.put("VMMCRUNGROUP", Integer.toString(run));
        env.remove("VMMCPARENT");
        if (nodeDir != null) {
            env.put("SOFTCMI_NODE", nodeDir);
        }
        File log = s.outDir().resolve("VMMC_" + host + "." + pid).toFile();
        pb.redirectErrorStream(true).redirectOutput(log).redirectInput(new File("/dev/null"));
        Process p = pb.start();
        store.recordProcess(s.name(), s.outDir(), run, host, pid, p.pid());
        out.println("started " + program + " on " + host + ": pid " + pid + ", run group " + run + ", log " + log);
    }
}
