package io.softcmi.vmmc.cluster;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * Sessions and run groups of {@code cfgvmmc}, kept in the share directory next to the
 * receive-buffer directory:
 * <pre>
 *   SHARE/SESSION/session.properties     user, drive (working directory root), netshare, outdir, hosts
 *   SHARE/SESSION/runs/N/                run group N (mkdir picks the next id atomically)
 *   SHARE/SESSION/runs/N/HOST.PID        the real (OS) pid of logical pid PID on HOST
 *   OUTDIR/SESSION_N                     the output control file of run group N (the manual's format)
 *   OUTDIR/VMMC_HOST.PID                 a process's output log
 * </pre>
 */
public final class SessionStore {
    private final Path share;

    /** A session's settings. @param name name @param user user @param drive working directory root @param netShare network share (recorded only) @param outDir output logging directory @param hosts VMMCHOSTS value */
    public record Session(String name, String user, String drive, String netShare, Path outDir, String hosts) {
    }

    /** @param share the share directory ({@code VMMCSHARE}) */
    public SessionStore(Path share) {
        this.share = share;
    }

    /** @return the share directory */
    public Path share() {
        return share;
    }

    private Path file(String session) {
        return share.resolve(session).resolve("session.properties");
    }

    /**
     * {@code cfgvmmc add}: creates a session.
     *
     * @param s the session
     * @throws IllegalStateException if it exists
     */
    public void add(Session s) {
        Properties p = new Properties();
        p.setProperty("user", s.user());
        p.setProperty("drive", s.drive());
        p.setProperty("netshare", s.netShare());
        p.setProperty("outdir", s.outDir().toAbsolutePath().toString());
        p.setProperty("hosts", s.hosts());
        try {
            Files.createDirectories(file(s.name()).getParent());
            try (Writer w = Files.newBufferedWriter(file(s.name()), StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW)) {
                p.store(w, "VMMC session " + s.name());
            }
            Files.createDirectories(s.outDir());
        } catch (FileAlreadyExistsException e) {
            throw new IllegalStateException("session " + s.name() + " exists");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @param name a session @return its settings, if it exists */
    public Optional<Session> get(String name) {
        Path f = file(name);
        if (!Files.exists(f)) {
            return Optional.empty();
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(f, StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Optional.of(new Session(name, p.getProperty("user", ""), p.getProperty("drive", "/"),
            p.getProperty("netshare", ""), Path.of(p.getProperty("outdir", ".")), p.getProperty("hosts", "")));
    }

    /** {@code cfgvmmc del}: deletes a session's settings and run records. @param name the session */
    public void delete(String name) {
        Path dir = share.resolve(name);
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path f : s.sorted((a, b) -> b.compareTo(a)).toList()) {
                Files.deleteIfExists(f);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Opens a new run group and writes its output control file's header.
     *
     * @param s the session
     * @return the run group id
     */
    public int newRun(Session s) {
        Path runs = share.resolve(s.name()).resolve("runs");
        try {
            Files.createDirectories(runs);
            for (int id = 1; ; id++) {
                try {
                    Files.createDirectory(runs.resolve(Integer.toString(id)));
                    Files.writeString(controlFile(s, id), "#\n# VMMC Output Control For Session [" + s.name() + "] Run #" + id
                        + " User [" + s.user() + "]\n#\n", StandardCharsets.UTF_8);
                    return id;
                } catch (FileAlreadyExistsException e) {
                    // taken
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @param s a session @param run a run group @return its output control file */
    public static Path controlFile(Session s, int run) {
        return s.outDir().resolve(s.name() + "_" + run);
    }

    /**
     * Records a started process in its run group and output control file.
     *
     * @param session the session name
     * @param outDir the output directory
     * @param run the run group
     * @param host the host
     * @param pid the logical pid
     * @param realPid the OS pid
     */
    public void recordProcess(String session, Path outDir, int run, String host, int pid, long realPid) {
        try {
            Path runDir = share.resolve(session).resolve("runs").resolve(Integer.toString(run));
            Files.createDirectories(runDir);
            Files.writeString(runDir.resolve(host + "." + pid), Long.toString(realPid), StandardCharsets.UTF_8);
            LocalDateTime t = LocalDateTime.now();
            String line = String.format("VMMC_%s %d # HOST=%s REALPID=%d TIME=%d/%2d/%2d-%2d:%2d%n", host, pid, host, realPid,
                t.getYear(), t.getMonthValue(), t.getDayOfMonth(), t.getHour(), t.getMinute());
            Files.writeString(outDir.resolve(session + "_" + run), line, StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A process of a run group. @param run group @param host host @param pid logical pid @param realPid OS pid */
    public record RunProcess(int run, String host, int pid, long realPid) {
    }

    /** @param session a session @return every process recorded in its run groups */
    public List<RunProcess> processes(String session) {
        List<RunProcess> out = new ArrayList<>();
        Path runs = share.resolve(session).resolve("runs");
        if (!Files.isDirectory(runs)) {
            return out;
        }
        try (Stream<Path> groups = Files.list(runs)) {
            for (Path g : groups.toList()) {
                try (Stream<Path> procs = Files.list(g)) {
                    for (Path f : procs.toList()) {
                        String n = f.getFileName().toString();
                        int dot = n.lastIndexOf('.');
                        out.add(new RunProcess(Integer.parseInt(g.getFileName().toString()), n.substring(0, dot),
                            Integer.parseInt(n.substring(dot + 1)), Long.parseLong(Files.readString(f).trim())));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }
}
