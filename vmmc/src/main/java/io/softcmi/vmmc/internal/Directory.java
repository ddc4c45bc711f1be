package io.softcmi.vmmc.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The session's receive-buffer directory: how an importer finds the CMI export and token of
 * {@code (node, pid, rbufid)}. It lives in the session's share directory (the manual's session
 * network share; {@code VMMCSHARE}, default {@code $TMPDIR/vmmc}):
 * <pre>
 *   SHARE/SESSION/procs/HOST.PID/           a process registered at vmmc init (mkdir: atomic pid choice)
 *   SHARE/SESSION/procs/HOST.PID/rbuf.ID    an export record (written to a temporary file, then renamed)
 *   SHARE/SESSION/procs/HOST.PID/rbuf.ID.gone  tombstone left by UnexportRecvBuf
 * </pre>
 * An export record holds six lines: {@code nwords}, the flag names, the hex of the
 * {@code RemoteSegmentHandle}, the hex of the {@code CmiToken}, {@code in-place} or
 * {@code copied} (a record of four lines is {@code copied}), and the hex of the exporter's
 * {@code DirectInlet} address, or {@code -} where it serves none (a record of five lines serves none).
 */
public final class Directory {
    private final Path procs;

    /**
     * An export record.
     *
     * @param nwords words
     * @param flags flag names, comma separated
     * @param handle handle bytes
     * @param token token bytes
     * @param inPlace whether messages land in the receiver's buffer itself (the buffer is its
     *        segment), so that a message without notification needs no notice to the receiver
     * @param inlet the address of the exporter's inlet for the buffer's segment (messages go
     *        straight to the exporting process), empty where it serves none (they go through the home)
     */
    public record Entry(long nwords, String flags, byte[] handle, byte[] token, boolean inPlace, byte[] inlet) {
    }

    /**
     * Opens (creating) a session's directory.
     *
     * @param share the share directory
     * @param session the session name
     */
    public Directory(Path share, String session) {
        this.procs = share.resolve(session).resolve("procs");
        try {
            Files.createDirectories(procs);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the VMMC session directory " + procs, e);
        }
    }

    private Path proc(String host, int pid) {
        return procs.resolve(host + "." + pid);
    }

    /**
     * Registers a process with a fixed pid (replacing a stale registration).
     *
     * @param host the host name
     * @param pid the pid
     */
    public void register(String host, int pid) {
        try {
            Files.createDirectories(proc(host, pid));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Registers a process under the lowest free pid of its host.
     *
     * @param host the host name
     * @return the pid chosen
     */
    public int registerNext(String host) {
        for (int pid = 1; pid < 1_000_000; pid++) {
            try {
                Files.createDirectory(proc(host, pid));
                return pid;
            } catch (FileAlreadyExistsException e) {
                // taken: try the next one
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        throw new IllegalStateException("no free VMMC pid on " + host);
    }

    /** @param host a host @param pid a pid @return whether that process is registered */
    public boolean registered(String host, int pid) {
        return Files.isDirectory(proc(host, pid));
    }

    /**
     * Removes a process's registration and records.
     *
     * @param host the host name
     * @param pid the pid
     */
    public void unregister(String host, int pid) {
        Path dir = proc(host, pid);
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.toList()) {
                Files.deleteIfExists(f);
            }
            Files.deleteIfExists(dir);
        } catch (NoSuchFileException e) {
            // already gone
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Publishes an export record (and clears an old tombstone of the id).
     *
     * @param host the exporter's host
     * @param pid the exporter's pid
     * @param rbufid the buffer id
     * @param e the record
     */
    public void publish(String host, int pid, int rbufid, Entry e) {
        Path dir = proc(host, pid);
        HexFormat hex = HexFormat.of();
        String text = e.nwords() + "\n" + e.flags() + "\n" + hex.formatHex(e.handle()) + "\n" + hex.formatHex(e.token()) + "\n"
            + (e.inPlace() ? "in-place" : "copied") + "\n" + (e.inlet().length == 0 ? "-" : hex.formatHex(e.inlet())) + "\n";
        try {
            Files.deleteIfExists(dir.resolve("rbuf." + rbufid + ".gone"));
            Path tmp = Files.createTempFile(dir, "rbuf." + rbufid + ".", ".tmp");
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            try {
                Files.move(tmp, dir.resolve("rbuf." + rbufid), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException x) {
                Files.move(tmp, dir.resolve("rbuf." + rbufid), StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException x) {
            throw new UncheckedIOException(x);
        }
    }

    /**
     * Withdraws an export record, leaving a tombstone so importers fail at once.
     *
     * @param host the exporter's host
     * @param pid the exporter's pid
     * @param rbufid the buffer id
     */
    public void withdraw(String host, int pid, int rbufid) {
        Path dir = proc(host, pid);
        try {
            Files.deleteIfExists(dir.resolve("rbuf." + rbufid));
            Files.writeString(dir.resolve("rbuf." + rbufid + ".gone"), "", StandardCharsets.UTF_8);
        } catch (IOException x) {
            throw new UncheckedIOException(x);
        }
    }

    /** @param host host @param pid pid @param rbufid id @return whether the buffer was unexported (tombstone present) */
    public boolean withdrawn(String host, int pid, int rbufid) {
        return Files.exists(proc(host, pid).resolve("rbuf." + rbufid + ".gone"));
    }

    /**
     * Looks an export record up.
     *
     * @param host the exporter's host
     * @param pid the exporter's pid
     * @param rbufid the buffer id
     * @return the record, or empty if none is published
     */
    public Optional<Entry> lookup(String host, int pid, int rbufid) {
        try {
            List<String> lines = Files.readAllLines(proc(host, pid).resolve("rbuf." + rbufid), StandardCharsets.UTF_8);
            if (lines.size() < 4) {
                return Optional.empty();
            }
            HexFormat hex = HexFormat.of();
            return Optional.of(new Entry(Long.parseLong(lines.get(0)), lines.get(1), hex.parseHex(lines.get(2)),
                hex.parseHex(lines.get(3)), lines.size() > 4 && lines.get(4).equals("in-place"),
                lines.size() > 5 && !lines.get(5).equals("-") ? hex.parseHex(lines.get(5)) : new byte[0]));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the registered processes as {@code HOST.PID} names */
    public List<String> processes() {
        try (Stream<Path> s = Files.list(procs)) {
            List<String> out = new ArrayList<>();
            s.forEach(p -> out.add(p.getFileName().toString()));
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
