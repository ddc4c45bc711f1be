package io.softcmi.node;

import io.softcmi.wire.ControlMessage;
import io.softcmi.wire.ProcessMessage;
import java.io.File;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Processes started by the node for its clients ({@link ProcessMessage.ProcSpawn}): a general
 * engine mechanism (VMMC's {@code cfgvmmc run} and {@code vmmc_Spawn} use it). The node starts
 * the process with {@link ProcessBuilder}, gives it a node-unique logical pid (1, 2, ...) and
 * keeps a record (group, logical pid, OS pid, name, command, state, exit code) that outlives the
 * client that asked. The process's environment is the node's, with {@code SOFTCMI_NODE} set to
 * the node's directory, then the request's additions. {@link ProcessMessage.ProcKill} ends a group or one process,
 * {@code cmiadm runs} lists the records. At {@link #shutdown} the node ends every process it
 * started that still runs. Records of exited processes are kept, the oldest dropped beyond
 * {@link #MAX_EXITED}. Thread-safe (its own monitor; not under the engine's lock: starting a
 * process may take a while).
 */
final class ProcessService {
    /** Most records of exited processes kept. */
    static final int MAX_EXITED = 1024;
    private static final System.Logger LOG = System.getLogger("io.softcmi.node");
    private final Map<Long, Record> records = new LinkedHashMap<>();
    private final String nodeDirectory;
    private long nextPid = 1;
    private boolean shutDown;

    /**
     * @param nodeDirectory the node's directory: a started process gets it as {@code SOFTCMI_NODE}
     *        unless the request sets that variable
     */
    ProcessService(String nodeDirectory) {
        this.nodeDirectory = nodeDirectory;
    }

    /** One started process. */
    private static final class Record {
        final long pid;
        final String group;
        final String name;
        final String command;
        final Process process;
        final Instant started = Instant.now();
        volatile boolean exited;
        volatile int exitCode;
        volatile boolean killed;

        Record(long pid, String group, String name, String command, Process process) {
            this.pid = pid;
            this.group = group;
            this.name = name;
            this.command = command;
            this.process = process;
        }
    }

    /**
     * Starts a process.
     *
     * @param r the request
     * @return {@code [logicalPid, osPid]}
     * @throws NodeException {@code CMI_ERR_INVAL} if the command is empty or cannot be started
     */
    ControlMessage spawn(ProcessMessage.ProcSpawn r) {
        if (r.argv().isEmpty()) {
            throw NodeException.inval("spawn: no command");
        }
        ProcessBuilder pb = new ProcessBuilder(r.argv());
        Map<String, String> env = pb.environment();
        if (nodeDirectory != null) {
            env.put("SOFTCMI_NODE", nodeDirectory);
        }
        for (String e : r.env()) {
            int eq = e.indexOf('=');
            if (eq < 0) {
                env.remove(e);
            } else if (eq == 0) {
                throw NodeException.inval("spawn: bad environment entry '" + e + "'");
            } else {
                env.put(e.substring(0, eq), e.substring(eq + 1));
            }
        }
        if (!r.workDir().isEmpty()) {
            pb.directory(new File(r.workDir()));
        }
        pb.redirectOutput(r.stdout().isEmpty() ? ProcessBuilder.Redirect.DISCARD
            : ProcessBuilder.Redirect.appendTo(new File(r.stdout())));
        if (!r.stderr().isEmpty() && r.stderr().equals(r.stdout())) {
            pb.redirectErrorStream(true);
        } else {
            pb.redirectError(r.stderr().isEmpty() ? ProcessBuilder.Redirect.DISCARD
                : ProcessBuilder.Redirect.appendTo(new File(r.stderr())));
        }
        synchronized (this) {
            if (shutDown) {
                throw NodeException.inval("spawn: the node is shutting down");
            }
            Process p;
            try {
                p = pb.start();
                p.getOutputStream().close(); // no input: the child reads end of file
            } catch (IOException | RuntimeException e) {
                throw NodeException.inval("spawn: cannot start " + r.argv().getFirst() + ": " + e.getMessage());
            }
            Record rec = new Record(nextPid++, r.group(), r.name(), String.join(" ", r.argv()), p);
            records.put(rec.pid, rec);
            p.onExit().thenAccept(done -> {
                rec.exitCode = done.exitValue();
                rec.exited = true;
                trim();
            });
            LOG.log(Level.INFO, "started process {0} (os pid {1}) in group {2}: {3}", rec.pid, p.pid(), rec.group, rec.name);
            return new ControlMessage.LongsValue(new long[] {rec.pid, p.pid()});
        }
    }

    /**
     * Ends running processes of a group.
     *
     * @param r the request: a group, and one logical pid or 0 for all
     * @return the number of processes signalled
     */
    synchronized ControlMessage kill(ProcessMessage.ProcKill r) {
        long n = 0;
        for (Record rec : records.values()) {
            if (rec.group.equals(r.group()) && (r.logicalPid() == 0 || rec.pid == r.logicalPid()) && !rec.exited
                    && rec.process.isAlive()) {
                rec.killed = true;
                rec.process.destroy();
                n++;
            }
        }
        return new ControlMessage.LongValue(n);
    }

    /**
     * The state of one process.
     *
     * @param r the request
     * @return {@code [osPid, running, exitCode]}
     * @throws NodeException {@code CMI_ERR_INVAL} if the node knows no such process
     */
    synchronized ControlMessage status(ProcessMessage.ProcStatus r) {
        Record rec = records.get(r.logicalPid());
        if (rec == null) {
            throw NodeException.inval("no process " + r.logicalPid() + " started by this node");
        }
        return new ControlMessage.LongsValue(new long[] {rec.process.pid(), rec.exited ? 0 : 1, rec.exited ? rec.exitCode : 0});
    }

    /** @return the table {@code cmiadm runs} prints */
    synchronized ControlMessage.Table table() {
        List<List<String>> rows = new ArrayList<>();
        for (Record rec : records.values()) {
            rows.add(List.of(rec.group, Long.toString(rec.pid), Long.toString(rec.process.pid()), rec.name,
                rec.exited ? (rec.killed ? "killed" : "exited") : "running", rec.exited ? Integer.toString(rec.exitCode) : "-",
                rec.started.toString(), rec.command.length() > 200 ? rec.command.substring(0, 200) + "..." : rec.command));
        }
        return new ControlMessage.Table(List.of("GROUP", "PID", "OS-PID", "NAME", "STATE", "EXIT", "STARTED", "COMMAND"),
            rows);
    }

    private synchronized void trim() {
        long exited = records.values().stream().filter(rec -> rec.exited).count();
        for (Iterator<Record> it = records.values().iterator(); it.hasNext() && exited > MAX_EXITED; ) {
            if (it.next().exited) {
                it.remove();
                exited--;
            }
        }
    }

    /**
     * The node stops: every process it started that still runs is ended ({@link Process#destroy},
     * then forcibly after 5 s).
     */
    void shutdown() {
        List<Process> running = new ArrayList<>();
        synchronized (this) {
            shutDown = true;
            for (Record rec : records.values()) {
                if (rec.process.isAlive()) {
                    rec.killed = true;
                    rec.process.destroy();
                    running.add(rec.process);
                }
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        for (Process p : running) {
            try {
                if (!p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
