package io.softcmi.vmmc.cluster;

import io.softcmi.cmi.CmiException;
import io.softcmi.vmmc.internal.Directory;
import io.softcmi.vmmc.internal.NodeServices;
import io.softcmi.vmmc.internal.RunControl;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code cfgvmmc} with the manual's syntax:
 * <pre>
 * cfgvmmc HOST add SESSION USER PASSWORD DRIVE NETSHARE OUTDIR
 * cfgvmmc HOST del SESSION
 * cfgvmmc HOST run SESSION WORKDIR PROGRAM [ARGS]
 * cfgvmmc HOST kill SESSION [PID]
 * </pre>
 * The node daemons are the cluster server: {@code add} records the session (its hosts from
 * {@code VMMCHOSTS}) in the registry of every host's daemon; {@code run} has HOST's daemon
 * start PROGRAM (an executable file, relative to WORKDIR under the session's DRIVE, or else a
 * Java main class on this class path, run with this {@code java}) as the lead of a new run group (numbered by the daemon
 * of the session's first host, so ids are unique in the session);
 * {@code kill} and {@code del} ask every host's daemon to end the session's processes. HOST's
 * daemon is found by its node directory or node address in {@code VMMCHOSTS}
 * ({@code NAME=NODE_DIR} or {@code NAME=HEX_NODE_ID@HOST:PORT}), else {@code SOFTCMI_NODE};
 * the other hosts' daemons by the session's hosts. A host given by address is reached through
 * the daemon of {@code SOFTCMI_NODE} (or of the first host given by directory), which forwards
 * the requests over its peer connection (the host's daemon must run with
 * {@code --peer-processes yes}).
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
        String host = args[0];
        String session = args[2];
        try {
            switch (args[1]) {
                case "add" -> {
                    if (args.length != 8) {
                        err.println("usage: cfgvmmc HOST add SESSION USER PASSWORD DRIVE NETSHARE OUTDIR");
                        return 2;
                    }
                    add(host, session, args, out);
                }
                case "del" -> {
                    SessionInfo s = SessionInfo.load(host, session);
                    long killed = kill(s, null, 0);
                    for (Map.Entry<String, String> h : s.nodeDirs().entrySet()) {
                        try (NodeServices d = s.reach(h.getValue())) {
                            d.delete(NodeServices.SESSIONS, session);
                            d.delete(NodeServices.RUNS, session);
                        }
                    }
                    deleteTree(s.share().resolve(session));
                    out.println("session " + session + " deleted" + (killed > 0 ? " (" + killed + " process(es) killed)" : ""));
                }
                case "run" -> {
                    if (args.length < 5) {
                        err.println("usage: cfgvmmc HOST run SESSION WORKDIR PROGRAM [ARGS]");
                        return 2;
                    }
                    start(SessionInfo.load(host, session), host, args[3], args[4],
                        List.of(Arrays.copyOfRange(args, 5, args.length)), out);
                }
                case "kill" -> {
                    long killed = kill(SessionInfo.load(host, session), host, args.length < 4 ? 0 : Integer.parseInt(args[3]));
                    out.println("killed " + killed + " process(es) of session " + session);
                }
                default -> {
                    err.println("cfgvmmc: unknown command " + args[1]);
                    return 2;
                }
            }
            return 0;
        } catch (RuntimeException e) {
            err.println("cfgvmmc: " + e.getMessage());
            return 1;
        }
    }

    private static void add(String host, String session, String[] args, PrintStream out) {
        String hosts = System.getenv("VMMCHOSTS") != null ? System.getenv("VMMCHOSTS") : host;
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("user", args[3]);
        fields.put("drive", args[5]);
        fields.put("netshare", args[6]);
        fields.put("outdir", Path.of(args[7]).toAbsolutePath().toString());
        fields.put("hosts", hosts);
        fields.put("share", SessionInfo.localShare().toAbsolutePath().toString());
        SessionInfo s = SessionInfo.of(session, fields);
        if (!s.nodeDirs().containsKey(host)) {
            throw new IllegalStateException("host " + host + " is not in VMMCHOSTS (" + hosts + ")");
        }
        try (NodeServices d = s.reach(s.nodeDirs().get(host))) {
            d.put(NodeServices.SESSIONS, session, fields, true);
        }
        for (Map.Entry<String, String> h : s.nodeDirs().entrySet()) {
            if (!h.getKey().equals(host)) {
                try (NodeServices d = s.reach(h.getValue())) {
                    d.put(NodeServices.SESSIONS, session, fields, false);
                }
            }
        }
        try {
            Files.createDirectories(s.outDir());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.println("session " + session + " added");
    }

    /** Ends the session's running processes on its hosts: all, or HOST's VMMC pid {@code pid}. */
    private static long kill(SessionInfo s, String host, int pid) {
        long killed = 0;
        for (Map.Entry<String, String> h : s.nodeDirs().entrySet()) {
            if (pid != 0 && !h.getKey().equals(host)) {
                continue;
            }
            try (NodeServices d = s.reach(h.getValue())) {
                var runs = d.list("runs");
                int group = runs.columns().indexOf("GROUP");
                int lpid = runs.columns().indexOf("PID");
                int name = runs.columns().indexOf("NAME");
                int state = runs.columns().indexOf("STATE");
                for (List<String> row : runs.rows()) {
                    if (row.get(group).startsWith(s.name() + "/") && row.get(state).equals("running")
                            && (pid == 0 || row.get(name).equals("VMMC_" + host + "." + pid))) {
                        killed += d.kill(row.get(group), Long.parseLong(row.get(lpid)));
                    }
                }
            } catch (CmiException e) {
                if (pid != 0) {
                    throw e;
                }
                // A host whose daemon is down has nothing running there to end.
            }
        }
        return killed;
    }

    private static void start(SessionInfo s, String host, String workDir, String program, List<String> args,
            PrintStream out) {
        String nodeDir = s.nodeDirs().get(host);
        if (!s.hosts().contains(host)) {
            throw new IllegalStateException("host " + host + " is not in session " + s.name() + " (" + s.hostsSetting() + ")");
        }
        if (nodeDir == null) {
            throw new IllegalStateException("host " + host + " of session " + s.name() + " names no node directory or address");
        }
        Path dir = Path.of(s.drive()).resolve(workDir.startsWith("/") ? workDir.substring(1) : workDir);
        Path exe = dir.resolve(program);
        List<String> argv;
        if (Files.isRegularFile(exe) && Files.isExecutable(exe)) {
            argv = new java.util.ArrayList<>(List.of(exe.toString()));
            argv.addAll(args);
        } else {
            argv = RunControl.javaArgv(program, args);
        }
        long run;
        // Run groups are numbered by one daemon, the session's first host's, so they are unique in the session.
        try (NodeServices first = s.reach(s.nodeDirs().values().iterator().next())) {
            run = first.next(NodeServices.RUNS, s.name());
        }
        try (NodeServices d = s.reach(nodeDir)) {
            RunControl.start(s.outDir(), s.name(), run, s.user());
            int pid = new Directory(s.share(), s.name()).registerNext(host);
            Map<String, String> vmmc = new LinkedHashMap<>();
            vmmc.put("VMMCSESSION", s.name());
            vmmc.put("VMMCHOSTS", s.hostsSetting());
            vmmc.put("VMMCHOST", host);
            vmmc.put("VMMCPID", Integer.toString(pid));
            vmmc.put("VMMCSHARE", s.share().toString());
            vmmc.put("VMMCOUTDIR", s.outDir().toString());
            vmmc.put("VMMCRUNGROUP", Long.toString(run));
            vmmc.put("VMMCPARENT", null);
            Path log = s.outDir().resolve("VMMC_" + host + "." + pid);
            long[] started;
            try {
                started = d.spawn(RunControl.group(s.name(), Long.toString(run)), "VMMC_" + host + "." + pid, argv,
                    RunControl.sessionEnv(vmmc), dir, log);
            } catch (RuntimeException e) {
                new Directory(s.share(), s.name()).unregister(host, pid);
                throw e;
            }
            RunControl.record(s.outDir(), s.name(), run, host, pid, started[1]);
            out.println("started " + program + " on " + host + ": pid " + pid + ", run group " + run + ", log " + log);
        }
    }

    private static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path f : s.sorted((a, b) -> b.compareTo(a)).toList()) {
                Files.deleteIfExists(f);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
